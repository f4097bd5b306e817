#pragma once
// IntervalRate: the rate of one counter a unit reports, by the unit's own
// clock. Each report gives the counter's total at the end of the interval
// it covers, [start, end] in the sender's nanoseconds; the first report is
// the baseline, each later one starts where the last one ended (or later,
// when one is still on its way; one older than the last adds nothing). The
// monitor hub takes the rate once per snapshot: bytes over time of every
// interval completed since the last take, or, when none completed, the
// last rate carried forward (marked) for a few snapshots, then 0 (a unit
// that stopped reporting does not keep its old rate). Rates never depend
// on when the reports happened to arrive at the hub.
#include <cstdint>
#include <string_view>

namespace evb {

// The longest interval a report may cover (an hour, in ns).
inline constexpr int64_t kMaxReportIntervalNs = 3600LL * 1000000000LL;

// How many snapshots in a row a rate is carried forward before it reads 0.
inline constexpr int kMaxCarriedSnapshots = 3;

// A rate as published: per second over `interval_s` of the sender's time.
struct PublishedRate {
  double per_s = 0;
  double interval_s = 0;  // the sender's time it covers (0: none yet)
  bool carried = false;   // no interval completed since the last snapshot
};

class IntervalRate {
 public:
  // A report: `total` at `end_ns`, covering [start_ns, end_ns]. Returns
  // why it is refused ("" when taken); a refused report changes nothing.
  std::string_view add(uint64_t total, int64_t start_ns, int64_t end_ns);
  // Why add() would refuse that report ("" when it would take it); changes nothing.
  std::string_view check(uint64_t total, int64_t start_ns, int64_t end_ns) const;
  // Whether a report ending at `end_ns` is older than the last one taken
  // (add() takes it and it adds nothing: nor should the unit's other figures).
  bool stale(int64_t end_ns) const { return have_ && end_ns <= end_ns_; }
  // The rate for the next snapshot (see above); starts a new window.
  PublishedRate take();

 private:
  bool have_ = false;  // a report has set the baseline
  uint64_t total_ = 0;
  int64_t end_ns_ = 0;
  uint64_t fresh_ = 0;    // counted over intervals completed since the last take
  int64_t fresh_ns_ = 0;  // their length
  PublishedRate last_;    // the last measured rate
  int carried_ = 0;       // snapshots in a row it was carried
};

// Checks an interval alone: "" or why it is refused.
std::string_view interval_fault(int64_t start_ns, int64_t end_ns);

}  // namespace evb
