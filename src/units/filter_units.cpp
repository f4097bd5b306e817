#include "units/filter_units.hpp"

#include <algorithm>

#include "core/clock.hpp"
#include "core/rng.hpp"

namespace evb {

FilterUnits::FilterUnits(int bu, const Config& config)
    : config_(config), bu_(bu), processing_ns_(s_to_ns(config.fu.processing_time_s)) {}

void FilterUnits::start(uint32_t slot, uint64_t event, int64_t now_ns) {
  ++processed_;
  if (to_unit(mix(config_.seed ^ 0xF11, event, static_cast<uint64_t>(bu_))) <
      config_.fu.accept_ratio)
    ++accepted_;
  busy_.push_back({slot, now_ns + processing_ns_});
}

void FilterUnits::offer(uint32_t slot, uint64_t event, int64_t now_ns) {
  if (static_cast<int>(busy_.size()) < config_.fu_per_bu)
    start(slot, event, now_ns);
  else
    waiting_.push_back({slot, event});
}

const std::vector<uint32_t>& FilterUnits::finished(int64_t now_ns) {
  std::vector<uint32_t>& done = done_;
  done.clear();
  for (size_t i = 0; i < busy_.size();) {
    if (busy_[i].until_ns <= now_ns) {
      done.push_back(busy_[i].slot);
      busy_[i] = busy_.back();
      busy_.pop_back();
      if (!waiting_.empty()) {
        const auto [slot, event] = waiting_.front();
        waiting_.pop_front();
        start(slot, event, now_ns);
      }
    } else {
      ++i;
    }
  }
  return done;
}

int64_t FilterUnits::next_deadline() const {
  int64_t t = -1;
  for (const auto& b : busy_) t = (t < 0) ? b.until_ns : std::min(t, b.until_ns);
  return t;
}

}  // namespace evb
