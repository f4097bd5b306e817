// scheduling: topology — the ring the application derives from the platform.
#include "apps/evbench/topology_ring.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "support/source_dir.hpp"

namespace evb {
namespace {

const std::string kPlatforms = std::string(EVBENCH_SOURCE_DIR) + "/configs/platforms/";

TEST(TopologyRing, IsAReproduciblePermutationOfTheNodes) {
  Config c;
  c.scheduling = Scheduling::topology;
  c.nodes = 46;
  c.topology.platform = kPlatforms + "miscabled-64.yaml";
  attach_topology_ring(c);
  ASSERT_EQ(c.topology.ring.size(), 46u);
  auto sorted = c.topology.ring;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> nodes(46);
  std::iota(nodes.begin(), nodes.end(), 0);
  EXPECT_EQ(sorted, nodes);
  Config again = c;
  again.topology.ring.clear();
  attach_topology_ring(again);
  EXPECT_EQ(again.topology.ring, c.topology.ring);  // every rank computes the same
  EXPECT_NE(c.topology.ring, nodes);                // the name order conflicts on this tree
}

TEST(TopologyRing, OtherSchedulingLeavesItEmpty) {
  Config c;
  c.topology.platform = kPlatforms + "miscabled-64.yaml";
  attach_topology_ring(c);
  EXPECT_TRUE(c.topology.ring.empty());
}

TEST(TopologyRing, TooFewHostsNamesTheKey) {
  Config c;
  c.scheduling = Scheduling::topology;
  c.nodes = 9;
  c.topology.platform = kPlatforms + "emulated-2x4.yaml";
  try {
    attach_topology_ring(c);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("topology.platform: "), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("has 8 hosts, nodes is 9"), std::string::npos);
  }
}

}  // namespace
}  // namespace evb
