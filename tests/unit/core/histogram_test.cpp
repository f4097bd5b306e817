#include "core/histogram.hpp"

#include <gtest/gtest.h>

namespace evb {
namespace {

TEST(Histogram, QuantilesWithinResolution) {
  Histogram h;
  for (int i = 1; i <= 1000; ++i) h.add(i * 1000000ll);  // 1..1000 ms
  EXPECT_EQ(h.count(), 1000u);
  EXPECT_NEAR(h.quantile(0.5) / 1e6, 500, 500 * 0.03);
  EXPECT_NEAR(h.quantile(0.99) / 1e6, 990, 990 * 0.03);
  EXPECT_EQ(h.max(), 1000000000ll);
}

TEST(Histogram, MergeAndSerializeRoundTrip) {
  Histogram a, b;
  a.add(5000);
  b.add(7000000);
  a.merge(b);
  const Histogram c = Histogram::deserialize(a.serialize());
  EXPECT_EQ(c.count(), 2u);
  EXPECT_EQ(c.max(), 7000000);
  EXPECT_EQ(c.quantile(0.5), a.quantile(0.5));
}

}  // namespace
}  // namespace evb
