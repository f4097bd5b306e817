// Connections of one host pair (lanes): each is delivered in send order, and
// a message on one lane does not wait behind a large message on another,
// in every queueing mode; a lane out of range is refused.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "simnet_util.hpp"

namespace evb::simnet::test {
namespace {

// Host 0 sends 1 MiB on lane 0, then 64 B on `small_lane` 1 ns later:
// the delivery order of the two ids.
std::vector<uint64_t> big_then_small(const NetworkParams& params, int small_lane) {
  const topo::Platform p = star(3);
  CreditNetwork net(p, params, 2);
  const uint64_t big = net.send(0, 1, 1 << 20, 0, 0);
  const uint64_t small = net.send(0, 1, 64, 1, small_lane);
  std::vector<uint64_t> order;
  for (const Delivery& d : drain(net)) order.push_back(d.message);
  EXPECT_EQ(order.size(), 2u);
  EXPECT_TRUE(
      (order == std::vector<uint64_t>{big, small} || order == std::vector<uint64_t>{small, big}));
  return order;
}

TEST(SimnetLanes, AMessageOnAnotherLaneOvertakesALargeOneOfTheSamePair) {
  for (const NetworkParams& params : every_mode()) {
    EXPECT_EQ(big_then_small(params, 1), (std::vector<uint64_t>{2, 1}));
    EXPECT_EQ(big_then_small(params, 0), (std::vector<uint64_t>{1, 2}));
  }
}

TEST(SimnetLanes, LanesAreCheckedAtConstructionAndSend) {
  const topo::Platform p = star(2);
  EXPECT_THROW(CreditNetwork(p, NetworkParams{}, 0), Error);
  CreditNetwork net(p, NetworkParams{}, 2);
  EXPECT_THROW(net.send(0, 1, 64, 0, 2), Error);
  EXPECT_THROW(net.send(0, 1, 64, 0, -1), Error);
  EXPECT_EQ(net.send(0, 1, 64, 0, 1), 1u);
}

}  // namespace
}  // namespace evb::simnet::test
