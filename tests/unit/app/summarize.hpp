#pragma once
// The app tests summarize statistics the way rank 0 does: through the
// report of the protocol the configuration names, found in the protocols
// really built into evbench (register_builtin_protocols()), and read the
// summary as the kind that report makes (EventBuildingSummary,
// MicrobenchSummary; std::bad_cast when it made another).
//
// A test writes a rank's statistics as one TestRank: the common part and
// the protocol's own part side by side (their member names differ), which
// summarize sends through the wire's encoding of the own part
// (RankStats::own) as a rank does.
#include <memory>
#include <vector>

#include "core/config.hpp"
#include "core/topology.hpp"
#include "protocols/api/protocol_registry.hpp"
#include "protocols/common/rank_stats.hpp"
#include "protocols/common/stats_fields.hpp"
#include "protocols/event_building/event_building_stats_fields.hpp"
#include "protocols/event_building/event_building_summary.hpp"
#include "protocols/microbench/microbench_stats_fields.hpp"
#include "protocols/microbench/microbench_summary.hpp"

namespace evb {

template <class Part>
struct TestRank : RankStats, Part {};
using EventBuildingRank = TestRank<EventBuildingStats>;
using MicrobenchRank = TestRank<MicrobenchStats>;

template <class Own>
Own summarize(const Config& c, const Topology& t, const std::vector<RankStats>& ranks,
              bool simulated = false) {
  ProtocolRegistry protocols;
  register_builtin_protocols(protocols);
  const std::unique_ptr<Summary> s = protocols.of(c).report->summarize(c, t, ranks, simulated);
  return summary_as<Own>(*s);
}

template <class Own, class Part>
Own summarize(const Config& c, const Topology& t, const std::vector<TestRank<Part>>& ranks,
              bool simulated = false) {
  std::vector<RankStats> sent;
  for (const TestRank<Part>& r : ranks) {
    sent.push_back(static_cast<const RankStats&>(r));
    encode_own_part(sent.back(), static_cast<const Part&>(r));
  }
  return summarize<Own>(c, t, sent, simulated);
}

}  // namespace evb
