// RateTimeline keeps a bounded series, and find_recovery reads the
// pre-fault level and the first window back at 90 % from it.
#include "protocols/event_building/rate_timeline.hpp"

#include <gtest/gtest.h>

namespace evb {
namespace {

TEST(RateTimeline, BinsAndMergesWhenTheRunOutgrowsThem) {
  RateTimeline t(10, 4);  // 10-ns bins, at most 4
  t.add(0, 1);
  t.add(15, 2);
  t.add(39, 3);
  ASSERT_EQ(t.bins(), (std::vector<uint64_t>{1, 2, 0, 3}));
  t.add(40, 4);  // needs a fifth bin: neighbours merge, 20-ns bins
  EXPECT_EQ(t.bin_ns(), 20);
  EXPECT_EQ(t.bins(), (std::vector<uint64_t>{3, 3, 4}));
  t.add(-5, 1);  // before t0: the first bin
  EXPECT_EQ(t.bins()[0], 4u);
  t.add(1000, 1);  // far ahead: merges as often as needed
  EXPECT_EQ(t.bin_ns(), 320);
  uint64_t total = 0;
  for (uint64_t b : t.bins()) total += b;
  EXPECT_EQ(total, 1 + 2 + 3 + 4 + 1 + 1u);
  EXPECT_LE(t.bins().size(), 4u);
}

// 10 bins of 0.1 s at 100 bytes, a dip of 3 bins at 20, then `after`.
std::vector<uint64_t> dip(uint64_t after) {
  std::vector<uint64_t> b(10, 100);
  b.insert(b.end(), {20, 20, 20});
  b.insert(b.end(), 10, after);
  return b;
}

TEST(FindRecovery, FirstWindowBackAtNinetyPercent) {
  // Fault at 1.0 s, detected at 1.0 s; the level returns at 1.3 s.
  const Recovery r = find_recovery(dip(95), 0.1, 0.2, 1.0, 1.0, 2.3, 0.2);
  EXPECT_DOUBLE_EQ(r.pre_level, 1000.0);  // 100 bytes per 0.1 s
  ASSERT_TRUE(r.recovered_s.has_value());
  EXPECT_NEAR(*r.recovered_s, 1.3, 1e-9);
  EXPECT_NEAR(r.best_fraction, 0.95, 1e-9);
}

TEST(FindRecovery, NotBackWhenTheLevelStaysLow) {
  const Recovery r = find_recovery(dip(80), 0.1, 0.2, 1.0, 1.0, 2.3, 0.2);
  EXPECT_FALSE(r.recovered_s.has_value());
  EXPECT_NEAR(r.best_fraction, 0.8, 1e-9);
}

TEST(FindRecovery, WindowsAfterAssignmentStoppedDoNotCount) {
  // The level is back only after `until`: not recovered.
  std::vector<uint64_t> b = dip(20);
  b.insert(b.end(), 5, 100);
  const Recovery r = find_recovery(b, 0.1, 0.2, 1.0, 1.0, 2.3, 0.2);
  EXPECT_FALSE(r.recovered_s.has_value());
  EXPECT_TRUE(find_recovery(b, 0.1, 0.2, 1.0, 1.0, 2.8, 0.2).recovered_s.has_value());
}

TEST(FindRecovery, NoLevelBeforeAnEarlyFault) {
  EXPECT_EQ(find_recovery(dip(95), 0.1, 0.0, 0.1, 0.1, 2.3).pre_level, 0.0);
  // A fault during warm-up measures the level from t0.
  const Recovery r = find_recovery(dip(95), 0.1, 2.0, 1.0, 1.0, 2.3, 0.2);
  EXPECT_DOUBLE_EQ(r.pre_level, 1000.0);
  EXPECT_EQ(find_recovery({}, 0.1, 0, 1, 1, 2).pre_level, 0.0);
}

TEST(FindRecovery, LevelIsTheWindowBeforeTheFault) {
  // 200 per bin for 1 s, then 100 per bin: a fault at 2 s returns to 100.
  std::vector<uint64_t> b(10, 200);
  b.insert(b.end(), 10, 100);
  b.insert(b.end(), {10, 10, 95, 95, 95});
  const Recovery r = find_recovery(b, 0.1, 0.0, 2.0, 2.0, 2.5, 0.2, 0.9, 0.5);
  EXPECT_DOUBLE_EQ(r.pre_level, 1000.0);
  ASSERT_TRUE(r.recovered_s.has_value());
  EXPECT_NEAR(*r.recovered_s, 2.2, 1e-9);
  // The whole run as the level (1.5 s of history) would not be reached.
  EXPECT_FALSE(find_recovery(b, 0.1, 0.0, 2.0, 2.0, 2.5, 0.2, 0.9, 2.0).recovered_s);
}

}  // namespace
}  // namespace evb
