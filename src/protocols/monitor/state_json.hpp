#pragma once
// The live page's data (GET /api/state): the run's labels and resolved
// configuration, the knobs, the latest per-BU and per-RU figures, the RU->BU
// traffic matrix (bytes and Gb/s over the last interval), the rate history
// (aggregate and per BU), faults and control changes. Schema in
// docs/MONITORING.md.
#include <deque>
#include <string>

#include "protocols/monitor/snapshot.hpp"

namespace evb {

std::string state_json(const std::deque<MonitorSnapshot>& history, const std::string& config_yaml);

}  // namespace evb
