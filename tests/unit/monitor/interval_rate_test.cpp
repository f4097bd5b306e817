// A unit's rate is counted by its own clock: bytes over the intervals it
// reported, whatever the hub's ticks. Reports that bunch up or skip a tick
// give the same rate; a tick without a complete interval carries the last
// rate forward, marked, for a few snapshots only; unsound intervals are
// refused and change nothing.
#include "protocols/monitor/interval_rate.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace evb {
namespace {

constexpr int64_t kSecond = 1000000000;

TEST(IntervalRate, TheFirstReportIsTheBaseline) {
  IntervalRate r;
  EXPECT_EQ(r.add(5000, 0, kSecond), "");
  const PublishedRate p = r.take();
  EXPECT_EQ(p.per_s, 0.0);
  EXPECT_EQ(p.interval_s, 0.0);
  EXPECT_FALSE(p.carried);
}

TEST(IntervalRate, RatesAreOverTheSendersIntervalsNotTheTakes) {
  // A steady 1000 bytes per second by the sender's clock; its reports reach
  // the hub 0, 2, 1, 3 at a time between takes.
  IntervalRate r;
  uint64_t total = 0;
  int64_t t = 0;
  auto report = [&](int64_t length) {
    const int64_t start = t;
    t += length;
    total += static_cast<uint64_t>(1000 * length / kSecond);
    EXPECT_EQ(r.add(total, start, t), "");
  };
  report(kSecond);  // baseline
  report(kSecond);
  EXPECT_DOUBLE_EQ(r.take().per_s, 1000.0);
  const PublishedRate skipped = r.take();  // nothing arrived: carried, marked
  EXPECT_DOUBLE_EQ(skipped.per_s, 1000.0);
  EXPECT_TRUE(skipped.carried);
  report(kSecond / 2);  // a late tick on the sender's side: shorter, then longer
  report(3 * kSecond / 2);
  const PublishedRate two = r.take();
  EXPECT_DOUBLE_EQ(two.per_s, 1000.0);
  EXPECT_DOUBLE_EQ(two.interval_s, 2.0);
  EXPECT_FALSE(two.carried);
  for (int i = 0; i < 3; ++i) report(kSecond);
  EXPECT_DOUBLE_EQ(r.take().per_s, 1000.0);
}

TEST(IntervalRate, ACarriedRateReadsZeroAfterAFewSnapshots) {
  IntervalRate r;
  ASSERT_EQ(r.add(0, 0, kSecond), "");
  ASSERT_EQ(r.add(2000, kSecond, 2 * kSecond), "");
  EXPECT_DOUBLE_EQ(r.take().per_s, 2000.0);
  for (int i = 0; i < kMaxCarriedSnapshots; ++i) {
    const PublishedRate p = r.take();
    EXPECT_DOUBLE_EQ(p.per_s, 2000.0) << i;
    EXPECT_TRUE(p.carried);
  }
  const PublishedRate stopped = r.take();  // the unit stopped reporting
  EXPECT_EQ(stopped.per_s, 0.0);
  EXPECT_TRUE(stopped.carried);
  ASSERT_EQ(r.add(3000, 2 * kSecond, 3 * kSecond), "");  // back: measured again
  EXPECT_DOUBLE_EQ(r.take().per_s, 1000.0);
}

TEST(IntervalRate, ReportsOutOfOrderCountOnce) {
  // Reports 2 and 3 swapped on the way: 3 covers the gap (its total counts
  // 2's bytes); 2, older than 3, adds nothing.
  IntervalRate r;
  ASSERT_EQ(r.add(0, 0, kSecond), "");
  ASSERT_EQ(r.add(3000, 2 * kSecond, 3 * kSecond), "");
  ASSERT_EQ(r.add(1500, kSecond, 2 * kSecond), "");
  const PublishedRate p = r.take();
  EXPECT_DOUBLE_EQ(p.per_s, 1500.0);
  EXPECT_DOUBLE_EQ(p.interval_s, 2.0);
}

TEST(IntervalRate, UnsoundIntervalsAreRefusedAndChangeNothing) {
  IntervalRate r;
  const int64_t max = std::numeric_limits<int64_t>::max();
  const int64_t min = std::numeric_limits<int64_t>::min();
  EXPECT_NE(r.add(0, kSecond, 0), "");  // ends before it starts
  EXPECT_NE(r.add(0, min, max), "");    // longer than any report interval
  EXPECT_NE(r.add(0, 0, kMaxReportIntervalNs + 1), "");
  EXPECT_EQ(r.add(0, 0, kMaxReportIntervalNs), "");  // the baseline
  const int64_t t = kMaxReportIntervalNs;
  EXPECT_NE(r.add(10, t - 1, t + kSecond), "");            // overlaps the last one
  EXPECT_NE(r.add(10, max - kSecond, max), "");            // far after the last one
  EXPECT_EQ(r.add(10, min, min + kSecond), "");            // older than the last: adds nothing
  ASSERT_EQ(r.add(100, t, t + kSecond), "");               // 100 bytes in a second
  EXPECT_NE(r.add(99, t + kSecond, t + 2 * kSecond), "");  // its counter went back
  EXPECT_DOUBLE_EQ(r.take().per_s, 100.0);                 // the refused left no trace
  EXPECT_EQ(interval_fault(max, max), "");
  EXPECT_NE(interval_fault(max, min), "");
}

// check() is add()'s verdict without taking the report; stale() tells a
// report older than the last one taken (add() takes it, and it adds nothing).
TEST(IntervalRate, CheckJudgesAsAddAndStaleTellsAnOlderReport) {
  IntervalRate r;
  EXPECT_FALSE(r.stale(0));  // no baseline yet
  EXPECT_EQ(r.check(0, 0, kSecond), "");
  ASSERT_EQ(r.add(1000, 0, kSecond), "");
  EXPECT_TRUE(r.stale(kSecond));
  EXPECT_FALSE(r.stale(kSecond + 1));
  EXPECT_NE(r.check(999, kSecond, 2 * kSecond), "");       // went back
  EXPECT_NE(r.check(2000, kSecond / 2, 2 * kSecond), "");  // overlaps
  EXPECT_EQ(r.check(5, -kSecond, 0), "");                  // older: taken, adds nothing
  EXPECT_EQ(r.check(3000, kSecond, 2 * kSecond), "");
  EXPECT_EQ(r.take().interval_s, 0.0);  // check() took nothing
  ASSERT_EQ(r.add(3000, kSecond, 2 * kSecond), "");
  EXPECT_DOUBLE_EQ(r.take().per_s, 2000.0);
}

}  // namespace
}  // namespace evb
