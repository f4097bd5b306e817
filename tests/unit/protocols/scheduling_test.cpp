// Barrel order and seeded random permutations.
#include "protocols/common/scheduling.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

namespace evb {
namespace {

TEST(Scheduling, BarrelStartsAtOwnIndexAndSteps) {
  EXPECT_EQ(visit_order(Scheduling::barrel, 2, 5, 1, 0), (std::vector<int>{2, 3, 4, 0, 1}));
  // Barrel order does not depend on the event.
  EXPECT_EQ(visit_order(Scheduling::barrel, 2, 5, 1, 0),
            visit_order(Scheduling::barrel, 2, 5, 9, 77));
}

TEST(Scheduling, RandomIsAPermutationReproducibleFromTheSeed) {
  std::set<std::vector<int>> seen;
  for (uint64_t e = 0; e < 50; ++e) {
    auto o = visit_order(Scheduling::random, 1, 16, 42, e);
    auto sorted = o;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> all(16);
    std::iota(all.begin(), all.end(), 0);
    ASSERT_EQ(sorted, all) << "event " << e;
    EXPECT_EQ(o, visit_order(Scheduling::random, 1, 16, 42, e));  // reproducible
    seen.insert(o);
  }
  EXPECT_GT(seen.size(), 45u);  // a fresh permutation per event
  EXPECT_NE(visit_order(Scheduling::random, 1, 16, 42, 3),
            visit_order(Scheduling::random, 1, 16, 43, 3));
}

}  // namespace
}  // namespace evb
