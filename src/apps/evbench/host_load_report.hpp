#pragma once
// The hosts' load during the run (results.host_load and the table's
// `# host load` line; docs/METRICS.md "Host load"): per host, from the
// readings its ranks took at the start and end of their data phases
// (core/host_load.hpp). The ranks of the run on a host are "ours": the CPU
// time the host's processes used beyond theirs is the other processes'.
// A host's window runs from the earliest start to the latest end among its
// ranks (one monotonic clock per host), so every rank's own time falls
// inside it.
#include <optional>
#include <string>
#include <vector>

#include "core/json_writer.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

// One host's figures; an empty one could not be read there.
struct HostLoad {
  std::string hostname;
  std::vector<int> ranks;  // the run's ranks on it
  double window_s = 0;
  std::optional<double> loadavg_start, loadavg_end;  // 1-minute load average
  // CPU seconds other processes used in the window, and that over
  // window_s x cpus (0..1).
  std::optional<double> other_cpu_s, other_cpu_fraction;
  std::optional<double> steal_fraction;  // of all CPU time in the window (0..1)
  int cpus = 0;                          // online (0: unknown)
  std::optional<double> freq_mhz;        // mean current frequency at the end
};

// Per host, in the order of each host's lowest rank; ranks that took no
// readings (`evbench sim`) are left out, so a simulated run has none.
std::vector<HostLoad> summarize_host_load(const std::vector<RankStats>& ranks);

// "host load: node1, 2 CPUs: load average 1.52 -> 2.31, other processes
// 38.0 % of the CPUs, steal 0.0 %, CPU frequency not readable"; with
// several hosts, the one whose other processes used the most, and how many
// hosts there are. Empty without hosts.
std::string host_load_line(const std::vector<HostLoad>& hosts);

// "host_load": [...] into the open results object (nothing without hosts).
void write_host_load(JsonWriter& w, const std::vector<HostLoad>& hosts);

}  // namespace evb
