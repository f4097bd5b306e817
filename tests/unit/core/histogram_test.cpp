#include "core/histogram.hpp"

#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"

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

TEST(Histogram, EmptyRoundTrips) {
  const Histogram c = Histogram::deserialize(Histogram().serialize());
  EXPECT_EQ(c.count(), 0u);
  EXPECT_EQ(c.max(), 0);
}

// The text comes from another rank: anything serialize() would not write
// is refused, not skipped or half read.
TEST(Histogram, DeserializeRefusesMalformedText) {
  for (const std::string bad : {
           "",                                 // no separators
           "3:1,;1",                           // no maximum
           "3:1,;1;5;",                        // trailing separator
           "3,;1;5",                           // item without a count
           "x:1,;1;5",                         // index not a number
           "3:y,;1;5",                         // count not a number
           "3:0,;0;5",                         // a zero count is never written
           "-3:1,;1;5",                        // negative index
           "1200:1,;1;5",                      // index out of range
           "3:1,3:1,;2;5",                     // bucket given twice
           "3:1,;2;5",                         // count not the buckets' sum
           "3:1,;1;-5",                        // negative maximum
           "3:1,;1;9223372036854775808",       // maximum past int64
           "3:18446744073709551615,4:1,;0;5",  // counts overflow
           "3:1,;1;5x",                        // junk after the maximum
       }) {
    EXPECT_THROW(Histogram::deserialize(bad), Error) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace evb
