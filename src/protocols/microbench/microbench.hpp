#pragma once
// Micro-benchmarks of the DAQPIPE paper (section 3.5) over any driver:
// one-to-one (with shift, or a scan of every shift), many-to-one, gather,
// gather-cmd, gather-cmd-meta; and alltoall (a library collective, for
// drivers with the alltoall capability). Each rank sends from its RU side
// and receives on its BU side; per-node bandwidth is what a BU receives.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/topology.hpp"
#include "drivers/api/bootstrap.hpp"
#include "drivers/api/driver.hpp"
#include "protocols/microbench/microbench_stats.hpp"

namespace evb {

// Runs every step of the micro-benchmark on this rank (steps are separated
// by bootstrap barriers) and fills stats.step_bytes / step_window_s. `live`
// (not --quiet): rank 0 prints a line on stderr as each step of a scan starts.
// Returns the process's transparent huge page bytes while its buffers were
// held (RankStats::anon_huge_bytes).
uint64_t run_microbench(Driver& driver, Bootstrap& boot, const Topology& topo, const Config& config,
                        PollMode mode, const std::vector<std::string>& peer_names,
                        MicrobenchStats& stats, bool live = false);

}  // namespace evb
