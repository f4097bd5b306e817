#include "protocols/event_building/rate_timeline.hpp"

#include <algorithm>
#include <cmath>

namespace evb {

RateTimeline::RateTimeline(int64_t bin_ns, size_t max_bins)
    : bin_ns_(std::max<int64_t>(bin_ns, 1)), max_bins_(std::max<size_t>(max_bins, 2)) {}

void RateTimeline::add(int64_t t_ns, uint64_t bytes) {
  t_ns = std::max<int64_t>(t_ns, 0);
  size_t k = static_cast<size_t>(t_ns / bin_ns_);
  while (k >= max_bins_) {
    // Merge neighbours: bin i of the new series is bins 2i and 2i+1 of the old.
    for (size_t i = 0; i < bins_.size(); ++i) {
      if (i % 2 == 0)
        bins_[i / 2] = bins_[i];
      else
        bins_[i / 2] += bins_[i];
    }
    bins_.resize((bins_.size() + 1) / 2);
    bin_ns_ *= 2;
    k = static_cast<size_t>(t_ns / bin_ns_);
  }
  if (bins_.size() <= k) bins_.resize(k + 1, 0);
  bins_[k] += bytes;
}

Recovery find_recovery(const std::vector<uint64_t>& bins, double bin_s, double from_s,
                       double fault_s, double since_s, double until_s, double window_s,
                       double fraction, double pre_window_s) {
  Recovery r;
  if (bin_s <= 0 || bins.empty()) return r;
  const auto bin_at = [&](double t) {  // first bin starting at or after t
    return static_cast<size_t>(std::max(0.0, std::ceil(t / bin_s - 1e-9)));
  };
  const size_t fault_bin = std::min(static_cast<size_t>(std::max(0.0, fault_s) / bin_s),
                                    bins.size());  // bins wholly before the fault
  const size_t pre_bins = std::max<size_t>(2, static_cast<size_t>(pre_window_s / bin_s));
  const size_t earliest = fault_bin > pre_bins ? fault_bin - pre_bins : 0;
  size_t first = std::max(bin_at(from_s), earliest);
  if (first + 2 > fault_bin) first = earliest;
  if (first + 2 > fault_bin) return r;
  uint64_t pre = 0;
  for (size_t i = first; i < fault_bin; ++i) pre += bins[i];
  r.pre_level = pre / ((fault_bin - first) * bin_s);
  if (r.pre_level <= 0) return r;
  const size_t width = std::max<size_t>(2, static_cast<size_t>(std::ceil(window_s / bin_s - 1e-9)));
  const size_t end = std::min(bins.size(), static_cast<size_t>(std::max(0.0, until_s) / bin_s));
  uint64_t sum = 0;
  size_t start = bin_at(since_s);
  if (start + width > end) return r;
  for (size_t i = start; i < start + width; ++i) sum += bins[i];
  for (;; ++start) {
    const double f = sum / (width * bin_s) / r.pre_level;
    r.best_fraction = std::max(r.best_fraction, f);
    if (f >= fraction) {
      r.recovered_s = start * bin_s;
      return r;
    }
    if (start + width >= end) return r;
    sum += bins[start + width];
    sum -= bins[start];
  }
}

}  // namespace evb
