#pragma once
// Which protocol report a run's results go through: the one place the app
// chooses by protocol (to be replaced by the protocol registry, issue 22).
#include "core/config.hpp"
#include "protocols/api/protocol_report.hpp"

namespace evb {

// The report of config.protocol's family: event building or micro-benchmark.
const ProtocolReport& report_for(const Config& config);

}  // namespace evb
