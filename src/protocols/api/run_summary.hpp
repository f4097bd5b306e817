#pragma once
// What rank 0 makes of a run: the figures of docs/METRICS.md merged from
// every rank's statistics (ProtocolReport::summarize), shared by the
// protocols that fill them and the app that prints and writes them.
#include <cstdint>
#include <string>
#include <vector>

#include "protocols/common/control_phases.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

struct Summary {
  double window_s = 0;
  // Warm-up excluded from the window: the configured one, or 0 when an
  // `events:` run finished every event within it (then the whole run counts).
  double warmup_s = 0;
  bool warmup_ignored = false;
  uint64_t events_built = 0;
  uint64_t events_assigned = 0;
  double events_per_second = 0;
  std::vector<double> per_node_gbps;  // by BU index
  double min_gbps = 0, avg_gbps = 0, max_gbps = 0, aggregate_gbps = 0;
  // The same over the bytes that crossed a driver only: fragments (messages)
  // from other nodes' RUs, the node's own left out (results.bandwidth_gbps.network).
  std::vector<double> network_per_node_gbps;
  double network_min_gbps = 0, network_avg_gbps = 0, network_max_gbps = 0;
  double network_aggregate_gbps = 0;
  // Fragment bytes as they arrived inside the window, whatever their event
  // (not quantised by whole events: results.bandwidth_gbps.arrivals).
  std::vector<double> arrival_per_node_gbps;
  double arrival_min_gbps = 0, arrival_avg_gbps = 0, arrival_max_gbps = 0;
  double arrival_aggregate_gbps = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  IntegrityCounters integrity;
  std::string integrity_problem;  // the first BU's first problem (rank order)
  // Every assigned event is built, corrupt (integrity.bad_events), out of
  // sync (integrity.out_of_sync_events), reported incomplete by its BU, or lost (none of these:
  // must stay 0); accounted beyond the assigned ones are duplicate_events (an event built twice).
  uint64_t incomplete = 0;
  // on_failure exclude: events that miss a lost RU's fragment (reported, not
  // built short; expected, so not an integrity error), and deliveries
  // discarded because their BU had been excluded.
  uint64_t incomplete_lost_peer = 0;
  uint64_t late_discarded = 0;
  // on_ru_loss mask: events built without some masked RU's fragment, from
  // the EVM's books (so a part of events_built: an excluded BU's late
  // credits left out), and by RU the events the BUs still in the run built
  // without it (protocols/event_building/report_masked.hpp).
  uint64_t masked_events = 0;
  std::vector<uint64_t> masked_per_ru;
  int nodes = 0;  // RUs (one per node): a masked run's level is (nodes - masked) / nodes
  uint64_t fragments_in_place = 0;  // local_fragment in_place: checked in the RU's ring
  // on_failure exclude: requests RUs answered from a slot that no longer
  // held their event (an integrity error), the most events one RU's ring
  // held at once, its slots (the smallest ring), and the free BU slots the
  // EVM held back until a release.
  uint64_t ring_overrun = 0;
  uint64_t max_events_held = 0;
  uint64_t ring_slots = 0;
  uint64_t assignments_held_back = 0;
  std::vector<FailureRecord> failures;  // lost or excluded peers, as the EVM saw them
  std::vector<ControlRecord> control;   // run-time changes the EVM applied (the monitor)
  // The knobs at start, and the window split at each change (none without
  // changes): results.control_initial and results.phases.
  ControlKnobs control_initial;
  std::vector<ControlPhase> phases;
  // The EVM's built bytes per time bin and when assignment stopped
  // (RankStats): recovery times are read from them (aggregate_recovery).
  std::vector<uint64_t> rate_bins;
  double rate_bin_s = 0;
  double assign_stopped_at_s = -1;
  int ranks_lost = 0;           // ranks that contributed no statistics
  std::vector<int> lost_ranks;  // which (ascending)
  uint64_t lost = 0;
  uint64_t duplicate_events = 0;
  uint64_t fu_processed = 0, fu_accepted = 0;
  int max_requests_in_flight = 0, max_events_in_flight = 0, max_outstanding_per_bu = 0;
  std::vector<uint64_t> sample_bytes, sample_events;
  // Whose samples: "builders" (each BU's, summed), or "evm" (the EVM's
  // books, when a rank was lost and its own samples with it).
  std::string samples_from = "builders";
  std::vector<uint64_t> peak_rss_bytes;   // by rank
  std::vector<uint64_t> anon_huge_bytes;  // by rank: transparent huge pages in use
  std::vector<uint64_t> anon_rss_bytes;   // by rank: resident anonymous memory then
  // micro-benchmarks: per step (shift) per-node Gb/s by receiving node and
  // their min/avg/max; local_copy: every node sent to itself (shift 0), no
  // byte crossed a driver.
  struct Step {
    int shift = 0;
    double min = 0, avg = 0, max = 0, aggregate = 0;
    std::vector<double> per_node;
    bool local_copy = false;
  };
  std::vector<Step> steps;
  // A shift scan's headline is the mean over its network shifts (1..N-1);
  // with one node only shift 0 exists and stays the headline, flagged here
  // (as is a one-to-one run at shift 0).
  bool headline_local_copy = false;
  int headline_steps = 1;  // steps the headline averages (micro-benchmarks)
  // A one-to-one shift scan under `evbench sim` leaves shift 0 out: a node
  // sending to itself has no route on the simulated platform, so SMPI moves
  // it at no simulated cost (docs/SCALE.md). The headline is then shift 1's.
  bool self_shift_left_out = false;
  // The poll mode every rank ran, or the ranks' modes in rank order joined
  // by "," when they differ (hosts with different core counts).
  std::string poll_mode;
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

}  // namespace evb
