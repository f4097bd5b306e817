// Barrel order and seeded random permutations.
#include "protocols/event_building/scheduling.hpp"

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

TEST(Scheduling, TopologyIsABarrelOverTheRing) {
  Config c;
  c.scheduling = Scheduling::topology;
  c.topology.ring = {0, 2, 4, 1, 3, 5};
  std::vector<int> order;
  fill_visit_order(c, 4, 6, 7, order);
  EXPECT_EQ(order, (std::vector<int>{4, 1, 3, 5, 0, 2}));  // from 4's position in the ring
  // Every step is a permutation: no two BUs visit the same RU at once.
  for (int k = 0; k < 6; ++k) {
    std::set<int> step;
    for (int bu = 0; bu < 6; ++bu) {
      fill_visit_order(c, bu, 6, 0, order);
      step.insert(order[k]);
    }
    EXPECT_EQ(step.size(), 6u) << "step " << k;
  }
  // Without a ring of the right size it is the plain barrel.
  c.topology.ring.clear();
  fill_visit_order(c, 2, 5, 0, order);
  EXPECT_EQ(order, visit_order(Scheduling::barrel, 2, 5, 1, 0));
}

}  // namespace
}  // namespace evb
