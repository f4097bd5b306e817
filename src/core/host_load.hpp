#pragma once
// The host's load around one rank's data phase (results.host_load,
// docs/METRICS.md "Host load"): how busy the rest of the machine was while
// evbench measured. A rank reads its host twice, when its data phase starts
// and when its event loop ends; rank 0 turns the readings of every rank of
// a host into that host's figures (apps/evbench/host_load_report.hpp).
// The parsers take the files' text, so they are tested on sample text;
// read_host_load() reads the files of this host.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace evb {

// The aggregate "cpu" line of /proc/stat in clock ticks, and how many CPUs
// it sums (the "cpuN" lines: the CPUs online). Guest time is already inside
// user and nice, so it is not added again.
struct CpuTicks {
  uint64_t busy = 0;  // user + nice + system + irq + softirq: time some process (or the kernel) ran
  uint64_t steal = 0;  // time a hypervisor gave this machine's CPUs to someone else
  uint64_t total = 0;  // busy + idle + iowait + steal
  int cpus = 0;
};

// The "cpu" and "cpuN" lines of /proc/stat's text; empty when there is no
// aggregate line with at least the four fields every kernel has.
std::optional<CpuTicks> parse_proc_stat(std::string_view text);

// The 1-minute load average: the first field of /proc/loadavg's text.
std::optional<double> parse_loadavg(std::string_view text);

// A cpufreq file's text (scaling_cur_freq: kHz) in MHz; empty unless it
// holds a positive number.
std::optional<double> parse_freq_mhz(std::string_view text);

// One reading of the host and of this process, at one moment. Missing
// figures are empty: a kernel without the file, a host without cpufreq.
struct HostLoadReading {
  int64_t t_ns = 0;  // CLOCK_MONOTONIC: one clock for every process of the host
  std::optional<double> loadavg;
  std::optional<CpuTicks> ticks;
  int64_t ticks_per_s = 0;  // USER_HZ, the unit of `ticks`
  double own_cpu_s = 0;     // this process's user + system time so far, every thread (getrusage)
  std::optional<double> freq_mhz;  // mean over the CPUs whose scaling_cur_freq can be read
};

// A rank's two readings: its data phase's start and its event loop's end.
// `measured` false: not taken (`evbench sim`: the simulator's host is not
// the simulated cluster's).
struct HostLoadWindow {
  bool measured = false;
  HostLoadReading start;
  HostLoadReading end;
};

// Reads /proc/loadavg, /proc/stat, cpufreq and this process's CPU time now.
HostLoadReading read_host_load();

// A window as a flat list of numbers (RankStats' serialization; an empty
// figure is -1) and back; a list of another length reads as not measured.
std::vector<double> to_numbers(const HostLoadWindow& w);
HostLoadWindow from_numbers(const std::vector<double>& v);

}  // namespace evb
