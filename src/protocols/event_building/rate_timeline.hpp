#pragma once
// RateTimeline: the bytes of built events as the EVM saw them finish, in
// time bins since t0, and the recovery time that docs/METRICS.md defines on
// it. Bins start at 10 ms; when a run outgrows `max_bins` neighbouring bins
// merge and the width doubles, so a run of any length keeps a bounded series
// (4096 bins: runs up to 40 s keep 10-ms bins, a one-hour run ends with 1.28 s).
// The EVM fills it from the bytes BUs report with their credits, so BUs that
// die still count for the time they lived: BUs' own samples would not.
#include <cstdint>
#include <optional>
#include <vector>

namespace evb {

class RateTimeline {
 public:
  explicit RateTimeline(int64_t bin_ns = 10'000'000, size_t max_bins = 4096);
  void add(int64_t t_ns, uint64_t bytes);  // t_ns since t0; earlier than 0 counts in bin 0
  const std::vector<uint64_t>& bins() const { return bins_; }
  int64_t bin_ns() const { return bin_ns_; }

 private:
  int64_t bin_ns_;
  size_t max_bins_;
  std::vector<uint64_t> bins_;
};

// Recovery after a fault, from a timeline of `bin_s`-wide bins:
//  - pre_level: mean rate (bytes/s) over the `pre_window_s` before
//    `fault_s`, not earlier than `from_s` (the end of warm-up); from 0 when
//    that leaves less than two bins; 0 when the fault came before two bins
//    had passed (no level to return to). The window before the fault, not
//    the whole run, so a second fault is measured against the level the
//    first one left;
//  - recovered_s: the start of the first window of `window_s` (rounded up to
//    whole bins, at least 2) beginning at or after `since_s` (detection, or
//    the end of a stall) and ending by `until_s` (when assignment stopped:
//    later windows drain) whose mean rate is at least `fraction` of
//    pre_level; empty when there is none;
//  - best_fraction: the highest such window's rate over pre_level (what the
//    aggregate came back to when it never reached `fraction`).
struct Recovery {
  double pre_level = 0;
  std::optional<double> recovered_s;
  double best_fraction = 0;
};
Recovery find_recovery(const std::vector<uint64_t>& bins, double bin_s, double from_s,
                       double fault_s, double since_s, double until_s, double window_s = 0.1,
                       double fraction = 0.9, double pre_window_s = 1.0);

}  // namespace evb
