#pragma once
// How an event builder's aggregate came back after a fault (docs/METRICS.md,
// "Faults"): read from the EVM's built-bytes timeline in the run's
// EventBuildingSummary (rate_timeline.hpp's find_recovery), and told as the tail of a fault's
// table line and as the recovery fields of its results.faults entry.
#include <optional>
#include <string>

#include "core/json_writer.hpp"
#include "protocols/event_building/event_building_summary.hpp"

namespace evb {

// How the aggregate came back after a fault that began at `fault_s` and was
// over (detected, or its stall/delay ended) at `since_s`, seconds since the
// EVM's t0: the pre-fault level, and when the aggregate was back to 90 % of
// it (docs/METRICS.md, "Faults"). `known` is false without a level to
// return to (a fault in the first two bins, or no EVM timeline).
struct AggregateRecovery {
  bool known = false;
  double pre_fault_gbps = 0;
  std::optional<double> time_to_recover_s;  // from since_s; empty: not back to 90 %
  double best_fraction = 0;                 // the best window after since_s / pre-fault
  double resolution_s = 0;                  // the timeline's bin width
  // The share of the pre-fault level to come back to: rus_left / rus when
  // RUs were masked by then (on_ru_loss mask; best_fraction is of that
  // share), else 1 (rus 0).
  int rus_left = 0, rus = 0;
  double level() const { return rus > 0 ? static_cast<double>(rus_left) / rus : 1.0; }
};
// `level`: the share of the pre-fault aggregate to come back to (90 % of it).
AggregateRecovery aggregate_recovery(const EventBuildingSummary& s, double fault_s, double since_s,
                                     double level = 1.0);

// The end of a fault's table line: "; aggregate back to >= 90 % of its
// pre-fault 12.3 Gb/s after 0.200 s" and a newline; with RUs masked by then
// "of 3/4 of its pre-fault" (recovery_after, report_masked.hpp).
std::string recovery_text(const AggregateRecovery& r);

// Into the open fault entry: pre_fault_gbps, time_to_recover_s (null: not
// back to 90 %), recovered_fraction, recovery_level, recovery_resolution_s.
void recovery_fields(JsonWriter& w, const AggregateRecovery& r);

}  // namespace evb
