#pragma once
// The event builders' summary of a run (pull, push, pull-noevm): the
// common Summary with what only they count — every assigned event
// accounted for, arrivals, latency, the EVM's failures, run-time changes
// and rate bins, masked RUs, RU rings, filter units, bounds and samples.
// EventBuildingReport::summarize (event_building_summary.cpp) fills it.
#include <cstdint>
#include <string>
#include <vector>

#include "protocols/api/run_summary.hpp"
#include "protocols/common/control_phases.hpp"
#include "protocols/common/failure_record.hpp"
#include "protocols/event_building/run_cost.hpp"

namespace evb {

// An event-building run's summary; its report reads it with
// summary_as<EventBuildingSummary>.
struct EventBuildingSummary : Summary {
  // An `events:` run that finished every event within its warm-up: the
  // whole run is measured (warmup_s is then 0).
  bool warmup_ignored = false;
  // Fragment bytes as they arrived inside the window, whatever their event
  // (not quantised by whole events: results.bandwidth_gbps.arrivals).
  NodeRates arrivals;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  // Every assigned event is built, corrupt (integrity.bad_events), out of
  // sync (integrity.out_of_sync_events), reported incomplete by its BU, or lost (none of these:
  // must stay 0); accounted beyond the assigned ones are duplicate_events (an event built twice).
  uint64_t incomplete = 0;
  uint64_t lost = 0;
  uint64_t duplicate_events = 0;
  // on_failure exclude: events that miss a lost RU's fragment (reported, not
  // built short; expected, so not an integrity error), and deliveries
  // discarded because their BU had been excluded.
  uint64_t incomplete_lost_peer = 0;
  uint64_t late_discarded = 0;
  // on_ru_loss mask: events built without some masked RU's fragment, from
  // the EVM's books (so a part of events_built: an excluded BU's late
  // credits left out), and by RU the events the BUs still in the run built
  // without it (report_masked.hpp).
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
  // (EventBuildingStats): recovery times are read from them (aggregate_recovery).
  std::vector<uint64_t> rate_bins;
  double rate_bin_s = 0;
  double assign_stopped_at_s = -1;
  // Events each BU built, over the run and inside the window, for the BUs
  // still in the run (results.events_per_bu): the fewest tell whether a run
  // was long enough for every BU (docs/SCALE.md asks 20 at 512 nodes).
  std::vector<uint64_t> built_per_bu, in_window_per_bu;
  uint64_t fu_processed = 0, fu_accepted = 0;
  int max_requests_in_flight = 0, max_events_in_flight = 0, max_outstanding_per_bu = 0;
  std::vector<uint64_t> sample_bytes, sample_events;
  // Whose samples: "builders" (each BU's, summed), or "evm" (the EVM's
  // books, when a rank was lost and its own samples with it).
  std::string samples_from = "builders";
  // fragment.events = p > 1: the protocol assigns and builds MEPs of p
  // events; the event counts and rate above are then p x the MEPs', and
  // these keep the MEPs' own (events_built = meps_built x p).
  uint64_t packing_factor = 1;
  uint64_t meps_built = 0, meps_assigned = 0;
  double meps_per_second = 0;
  RunCost cost;  // commands and EVM CPU time per event built (results.cost)
};

}  // namespace evb
