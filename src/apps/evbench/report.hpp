#pragma once
// Rank 0's end of a run: merges every rank's statistics into the figures of
// docs/METRICS.md, prints the `#`-commented table on stdout and writes the
// JSON document (--json). Returns the run's exit code, the protocol's
// report's (ProtocolReport::exit_code): kExitIntegrity when an integrity
// counter is non-zero or (event builders) a data source was lost, else
// kExitOk (docs/METRICS.md, "Exit status").
#include <vector>

#include "apps/evbench/run_options.hpp"
#include "core/config.hpp"
#include "core/topology.hpp"
#include "drivers/api/registry.hpp"
#include "protocols/api/protocol.hpp"
#include "protocols/api/run_summary.hpp"
#include "protocols/background/congestor_stats.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

// The protocol's report (ProtocolFactory::report) summarizes and fills the
// table's body and the JSON's protocol fields; this adds the run header,
// the verdict and the JSON envelope. `config`: the resolved configuration
// the run started with; the table and the JSON show it as the run ended
// (ProtocolReport::as_ended: a steered run's knobs after its changes).
// `background`: the congestors' results (results.background[] and a table
// line each; nothing when the run had none).
int report_run(const ProtocolFactory& protocol, const Config& config, const Topology& topo,
               const std::vector<RankStats>& ranks, const RunOptions& options,
               const DriverProbe& driver, const std::vector<BackgroundResult>& background = {});

}  // namespace evb
