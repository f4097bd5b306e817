#pragma once
// Rank 0's end of a run: merges every rank's statistics into the figures of
// docs/METRICS.md, prints the `#`-commented table on stdout and writes the
// JSON document (--json). Returns the run's exit code: kExitIntegrity when
// an integrity counter is non-zero (Summary::integrity_ok) or a data source
// was lost (Summary::data_source_lost), else kExitOk (docs/METRICS.md,
// "Exit status").
#include <optional>
#include <vector>

#include "apps/evbench/run_options.hpp"
#include "core/config.hpp"
#include "core/topology.hpp"
#include "drivers/api/registry.hpp"
#include "protocols/api/run_summary.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

// `simulated`: the ranks ran under `evbench sim` (see self_shift_left_out).
Summary summarize(const Config& config, const Topology& topo, const std::vector<RankStats>& ranks,
                  bool simulated = false);

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
AggregateRecovery aggregate_recovery(const Summary& s, double fault_s, double since_s,
                                     double level = 1.0);

int report_run(const Config& config, const Topology& topo, const std::vector<RankStats>& ranks,
               const RunOptions& options, const DriverProbe& driver);

}  // namespace evb
