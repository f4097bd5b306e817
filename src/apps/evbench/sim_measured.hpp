#pragma once
// The measured run `evbench sim --calibrate FILE` fits to: one results
// document of `evbench run` (results JSON, read with yaml-cpp, JSON being
// YAML). What the fit needs from it: the run's configuration (to simulate
// the same run), its per-node rate, and where and with what it ran (for the
// calibration's record). Anything else — not a results document, a
// simulated run, a run that built no events — is a ConfigError naming the
// file and the key. A one-to-one run (builds no events) is read only where
// its rates may fit links rather than a protocol (`allow_links_only`: the
// switch links of a multi-run calibration, sim_calibrate.cpp), with its
// shift scan's rates.
#include <string>
#include <vector>

namespace evb {

// A measured event-building run, as its results document says.
class MeasuredRun {
 public:
  std::string path;          // the file it was read from
  std::string protocol;      // config.protocol
  std::string driver;        // config.driver
  std::string scheduling;    // config.scheduling
  int nodes = 0;             // config.nodes
  uint64_t fragment = 0;     // config.fragment.size, bytes
  double per_node_gbps = 0;  // results.bandwidth_gbps.per_node.avg
  double events_per_second = 0;
  double latency_p50_ms = 0;  // results.latency_ms.p50 (0 when absent)
  uint64_t events_built = 0;
  std::vector<std::string> hosts;  // results.host_load[].hostname (may be empty)
  // A shift scan's rates: results.shifts[] but the local copy (shift 0),
  // per node (per_node.avg); empty for any other run.
  struct ShiftRate {
    int shift = 0;
    double per_node_gbps = 0;
  };
  std::vector<ShiftRate> shifts;
  std::string git_sha;  // versions.git_sha
  // The RU and BU ranks' own CPU per fragment (results.cost.ru / .bu
  // cpu_us_per_fragment, in seconds) and the fragments each was measured
  // over; negative: not recorded (an evbench from before it was). `cpu_shared`:
  // an RU and a BU share a process (results.rank_cpu), so one CPU time was
  // split between them by fragments.
  double ru_fragment_cpu_s = -1, bu_fragment_cpu_s = -1;
  uint64_t ru_cpu_fragments = 0, bu_cpu_fragments = 0;
  bool cpu_shared = false;
  // The run's configuration as YAML text, without what names how it ran
  // rather than what it ran (driver, driver_options, bootstrap, poll_mode):
  // the simulation sets those itself.
  std::string config_yaml;

  // One line: "pull, 4 nodes, barrel, fragment 524288 B, driver tcp".
  std::string summary() const;
};

// Reads and checks FILE; throws ConfigError "FILE: KEY: reason".
MeasuredRun read_measured_run(const std::string& path, bool allow_links_only = false);
// The same from text (`name` stands in for the file name in messages).
MeasuredRun parse_measured_run(const std::string& text, const std::string& name,
                               bool allow_links_only = false);

}  // namespace evb
