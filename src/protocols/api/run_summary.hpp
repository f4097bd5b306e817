#pragma once
// What rank 0 makes of a run: the figures of docs/METRICS.md merged from
// every rank's statistics (ProtocolReport::summarize). This is the part
// every protocol fills and the app reads (window, headline rates,
// integrity counters, lost ranks, poll mode, memory, placement); each
// protocol family extends it with its own: EventBuildingSummary
// (protocols/event_building/event_building_summary.hpp) and
// MicrobenchSummary (protocols/microbench/microbench_summary.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "units/builder_unit.hpp"

namespace evb {

// Per-node rates with their min, avg, max and sum (Gb/s, by receiving node).
struct NodeRates {
  std::vector<double> per_node;
  double min = 0, avg = 0, max = 0, aggregate = 0;
};

// The common part of a run's summary. A protocol's report makes its own
// kind (summarize) and reads it back as that kind (summary_as), so the app
// holds it as a Summary and never looks at a protocol's fields.
struct Summary {
  Summary() = default;
  Summary(const Summary&) = default;
  Summary(Summary&&) = default;
  Summary& operator=(const Summary&) = default;
  Summary& operator=(Summary&&) = default;
  virtual ~Summary() = default;

  double window_s = 0;
  // Warm-up excluded from the window: the configured one, or 0 when an
  // `events:` run finished every event within it (then the whole run counts).
  double warmup_s = 0;
  // Events built (micro-benchmarks: messages received) and assigned, and
  // the rate the headline gives.
  uint64_t events_built = 0;
  uint64_t events_assigned = 0;
  double events_per_second = 0;
  std::vector<double> per_node_gbps;  // by receiving node (a BU's index)
  double min_gbps = 0, avg_gbps = 0, max_gbps = 0, aggregate_gbps = 0;
  // The same over the bytes that crossed a driver only: fragments (messages)
  // from other nodes' RUs, the node's own left out (results.bandwidth_gbps.network).
  std::vector<double> network_per_node_gbps;
  double network_min_gbps = 0, network_avg_gbps = 0, network_max_gbps = 0;
  double network_aggregate_gbps = 0;
  IntegrityCounters integrity;
  std::string integrity_problem;  // the first receiver's first problem (rank order)
  int ranks_lost = 0;             // ranks that contributed no statistics
  std::vector<int> lost_ranks;    // which (ascending)
  // The poll mode every rank ran, or the ranks' modes in rank order joined
  // by "," when they differ (hosts with different core counts).
  std::string poll_mode;
  std::vector<uint64_t> peak_rss_bytes;   // by rank
  std::vector<uint64_t> anon_huge_bytes;  // by rank: transparent huge pages in use
  std::vector<uint64_t> anon_rss_bytes;   // by rank: resident anonymous memory then
  // Each rank's host and the CPUs it could run on (sched_getaffinity after
  // binding, by whoever bound it), in rank order, lost ranks left out:
  // results.placement.ranks.
  struct Placed {
    int rank = 0;
    std::string host;
    std::vector<int> cpus;
  };
  std::vector<Placed> placed;
};

// `s` as the kind of summary `Own` its protocol's report made: a report
// reads only the summaries it made (std::bad_cast otherwise).
template <class Own>
const Own& summary_as(const Summary& s) {
  return dynamic_cast<const Own&>(s);
}

}  // namespace evb
