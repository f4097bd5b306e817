#pragma once
// The app tests summarize statistics the way rank 0 does: through the
// report of the protocol the configuration names, found in the protocols
// really built into evbench (register_builtin_protocols()).
#include <vector>

#include "core/config.hpp"
#include "core/topology.hpp"
#include "protocols/api/protocol_registry.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

inline Summary summarize(const Config& c, const Topology& t, const std::vector<RankStats>& ranks,
                         bool simulated = false) {
  ProtocolRegistry protocols;
  register_builtin_protocols(protocols);
  return protocols.of(c).report->summarize(c, t, ranks, simulated);
}

}  // namespace evb
