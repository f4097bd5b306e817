#pragma once
// The ranks of `evbench sim --model credit`: every rank of the run a fiber
// in this process, on the World's virtual clock and network (src/sim/exec).
// The ranks run the real worker (driver credit, the World's bootstrap);
// rank 0 reports as `run` does, with results.simulated.
#include <string>
#include <vector>

#include "apps/evbench/cli.hpp"
#include "apps/evbench/run_options.hpp"
#include "core/config.hpp"
#include "sim/exec/world.hpp"

namespace evb {

// The host CPU time each fragment costs its RU before it leaves and its BU
// after it arrived (a calibration's; World::set_fragment_cpu). 0: none.
struct FragmentCpuCost {
  int64_t ru_ns = 0;
  int64_t bu_ns = 0;
};

// Runs `config` (driver credit) over `network`, rank r on host rank_host[r];
// returns the exit code (rank 0's, or the worst). A rank's failure is
// reported once, on stderr, and stops every rank.
int run_credit_ranks(const Config& config, const Plugins& plugins, simexec::Network& network,
                     const std::vector<int>& rank_host, const RunOptions& options,
                     FragmentCpuCost cpu = {});

// What --model credit sets beyond what the user asked: driver credit (an
// explicit other driver is an error), poll_mode block, normal pages.
void add_credit_overrides(std::vector<std::string>& sets);

}  // namespace evb
