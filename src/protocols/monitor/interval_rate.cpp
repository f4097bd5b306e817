#include "protocols/monitor/interval_rate.hpp"

namespace evb {
namespace {

// Whether `later` - `earlier` (later >= earlier) is at most the longest
// interval; computed in unsigned arithmetic, which cannot overflow here.
bool within_max(int64_t earlier, int64_t later) {
  const uint64_t length = static_cast<uint64_t>(later) - static_cast<uint64_t>(earlier);
  return length <= static_cast<uint64_t>(kMaxReportIntervalNs);
}

}  // namespace

std::string_view interval_fault(int64_t start_ns, int64_t end_ns) {
  if (end_ns < start_ns) return "an interval that ends before it starts";
  if (!within_max(start_ns, end_ns)) return "an interval too long";
  return "";
}

std::string_view IntervalRate::check(uint64_t total, int64_t start_ns, int64_t end_ns) const {
  if (const std::string_view fault = interval_fault(start_ns, end_ns); !fault.empty()) return fault;
  // A report older than the last one (a transport that does not keep the
  // order) adds nothing: the later total already counts its bytes.
  if (!have_ || end_ns <= end_ns_) return "";
  if (start_ns < end_ns_) return "an interval that overlaps the last one";
  if (!within_max(end_ns_, end_ns)) return "an interval too far after the last one";
  if (total < total_) return "a counter that went back";
  return "";
}

std::string_view IntervalRate::add(uint64_t total, int64_t start_ns, int64_t end_ns) {
  if (const std::string_view fault = check(total, start_ns, end_ns); !fault.empty()) return fault;
  if (!have_) {
    have_ = true;
    total_ = total;
    end_ns_ = end_ns;
    return "";
  }
  if (end_ns <= end_ns_) return "";  // older than the last: adds nothing
  // After a gap (a report still on its way) the totals cover it: the rate
  // is over the time since the last report's end.
  fresh_ += total - total_;
  fresh_ns_ += end_ns - end_ns_;
  total_ = total;
  end_ns_ = end_ns;
  return "";
}

PublishedRate IntervalRate::take() {
  if (fresh_ns_ > 0) {
    const double s = static_cast<double>(fresh_ns_) * 1e-9;
    last_ = PublishedRate{static_cast<double>(fresh_) / s, s, false};
    fresh_ = 0;
    fresh_ns_ = 0;
    carried_ = 0;
    return last_;
  }
  if (last_.interval_s <= 0) return {};  // nothing measured yet
  if (++carried_ > kMaxCarriedSnapshots) return PublishedRate{0, last_.interval_s, true};
  return PublishedRate{last_.per_s, last_.interval_s, true};
}

}  // namespace evb
