#pragma once
// The event builders' own part of what a rank sends rank 0 (RankStats::own,
// protocols/common/rank_stats.hpp): what its BU, RU and EVM counted. The
// run's agents count into it (EventBuildingRun owns it), the run encodes
// it at the end (event_building_stats_fields.hpp holds its field table),
// and rank 0's EventBuildingReport reads every rank's back.
//
// Times are relative to the rank's start of the data phase (t0, right after
// the start barrier). "Window" means after warm-up and, for deadline runs,
// before the deadline; see docs/METRICS.md.
#include <cstdint>
#include <string>
#include <vector>

#include "core/histogram.hpp"
#include "protocols/common/control_phases.hpp"
#include "protocols/common/failure_record.hpp"
#include "protocols/monitor/snapshot.hpp"
#include "units/builder_unit.hpp"

namespace evb {

// Each member has a line in FieldTable<EventBuildingStats>
// (event_building_stats_fields.hpp): the members without one do not reach
// rank 0.
struct EventBuildingStats {
  // BU
  int bu = -1;
  uint64_t events_built = 0;
  uint64_t events_started = 0;  // events this BU began building (pull-noevm: its assignment)
  uint64_t events_in_window = 0;
  uint64_t bytes_in_window = 0;  // bytes received by this BU in the window
  uint64_t bytes_total = 0;
  // The same for the bytes that crossed a driver: fragments from RUs of
  // other nodes (the node's own RU's fragment left out), counted exactly.
  uint64_t network_bytes_in_window = 0;
  uint64_t network_bytes_total = 0;
  // Fragment bytes as they arrived at this BU, whatever their event: a byte
  // rate inside the window not quantised by whole events (results.bandwidth_gbps.arrivals).
  uint64_t arrival_bytes_in_window = 0;
  uint64_t arrival_bytes_total = 0;
  int64_t last_completion_ns = 0;      // since t0
  std::vector<uint64_t> sample_bytes;  // per report interval
  std::vector<uint64_t> sample_events;
  // The EVM's view of the same (bytes and events of the events BUs report
  // finished with their credits, per report interval): it keeps what a BU
  // built before it was lost, which that BU's own samples take with it.
  // Kept under on_failure exclude only (no rank can be lost otherwise).
  std::vector<uint64_t> evm_sample_bytes;
  std::vector<uint64_t> evm_sample_events;
  Histogram latency;
  IntegrityCounters integrity;
  std::string integrity_problem;  // the BU's first corrupt/duplicate fragment, if any
  uint64_t fu_processed = 0;
  uint64_t fu_accepted = 0;
  int max_requests_in_flight = 0;   // most fragment requests one slot had outstanding
  int max_events_in_flight = 0;     // most slots busy at once
  uint64_t fragments_in_place = 0;  // own RU's fragments checked in its ring (local_fragment)
  uint64_t fragments_received = 0;  // fragments that arrived (whole run; in place ones too)
  // RU
  int ru = -1;
  uint64_t fragments_sent = 0;
  uint64_t bytes_sent = 0;
  // on_failure exclude (RingOwnership): requests whose fragment the ring no
  // longer held (an integrity error; the first goes to integrity_problem),
  // and the most events the ring held at once.
  uint64_t ring_overrun = 0;
  uint64_t max_events_held = 0;
  // EVM
  bool evm = false;
  uint64_t events_assigned = 0;
  int max_outstanding_per_bu = 0;          // most events one BU held at once
  std::vector<uint64_t> completed_per_bu;  // events each BU reported finished (accepted)
  std::vector<int> excluded_bus;           // BUs excluded during the run
  std::vector<FailureRecord> failures;
  // Bytes of built events per time bin since t0 (RateTimeline), the bin
  // width, and when assignment stopped: what recovery times are read from.
  std::vector<uint64_t> rate_bins;
  double rate_bin_s = 0;
  double assign_stopped_at_s = -1;
  // EVM: run-time changes applied (the monitor's POST /control), in order.
  std::vector<ControlRecord> control;
  // EVM: built events per stretch between those changes (one from t0 on).
  std::vector<PhaseBook> phases;
  // on_failure exclude: free slots that waited for a release (back-pressure).
  uint64_t assignments_held_back = 0;
  // Deliveries refused after an exclusion: credits from an excluded BU (EVM),
  // requests from it (RU), fragments reaching it (BU).
  uint64_t late_discarded = 0;
  // BU: events that could not be completed because an RU was lost (never
  // built short; expected under on_failure exclude).
  uint64_t incomplete_lost_peer = 0;
  // on_ru_loss mask. BU: events it built without some lost RU's fragment,
  // and per RU how many lacked that RU's. EVM: the events it accepted as
  // built so (the run's count: an excluded BU's late credits left out).
  uint64_t masked_events = 0;
  std::vector<uint64_t> masked_per_ru;
  uint64_t evm_masked_events = 0;
  // What this rank's roles sent and received, per role (EVM, BU, RU):
  // messages sent, commands sent, messages received, commands received
  // (CommandCounts::flat; a batch is one message and its entries commands).
  std::vector<uint64_t> commands;
  // EVM cost: thread CPU time in the EVM's handlers with the clock's own
  // share taken out (CpuMeter::net_ns), the stretches timed, and that share
  // per stretch; and the thread CPU time of the EVM rank's whole loop.
  uint64_t evm_cpu_ns = 0;
  uint64_t evm_cpu_stretches = 0;
  double evm_clock_overhead_ns = 0;
  uint64_t evm_loop_cpu_ns = 0;
  // RU and BU ranks: the process's own CPU time (getrusage RUSAGE_SELF,
  // every thread, user and system) over the measured window, read once at
  // each edge (WindowCpu, window_cpu.hpp), the window's length between the
  // two readings, and the fragments this rank's RU sent and its BU received
  // between them. cpu_window_s < 0: not measured (`evbench sim`).
  double cpu_window_s = -1;
  double cpu_user_s = 0;
  double cpu_system_s = 0;
  uint64_t cpu_fragments_sent = 0;
  uint64_t cpu_fragments_received = 0;

  // Books a completed event's bytes (`network_bytes` of them from other
  // nodes) into the window and the samples; true when it counted in the window.
  bool book(int64_t t_ns, uint64_t bytes, uint64_t network_bytes, uint64_t events,
            int64_t warmup_ns, int64_t end_ns, int64_t interval_ns);
};

}  // namespace evb
