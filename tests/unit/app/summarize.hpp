#pragma once
// The app tests summarize statistics the way rank 0 does: through the
// report of the protocol the configuration names, found in the protocols
// really built into evbench (register_builtin_protocols()), and read the
// summary as the kind that report makes (EventBuildingSummary,
// MicrobenchSummary; std::bad_cast when it made another).
#include <memory>
#include <vector>

#include "core/config.hpp"
#include "core/topology.hpp"
#include "protocols/api/protocol_registry.hpp"
#include "protocols/common/rank_stats.hpp"
#include "protocols/event_building/event_building_summary.hpp"
#include "protocols/microbench/microbench_summary.hpp"

namespace evb {

template <class Own>
Own summarize(const Config& c, const Topology& t, const std::vector<RankStats>& ranks,
              bool simulated = false) {
  ProtocolRegistry protocols;
  register_builtin_protocols(protocols);
  const std::unique_ptr<Summary> s = protocols.of(c).report->summarize(c, t, ranks, simulated);
  return summary_as<Own>(*s);
}

}  // namespace evb
