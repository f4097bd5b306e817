// The barrel-shift conflict scan and the rank-order search.
#include "topo/shift_scan.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "support/source_dir.hpp"
#include "topo/fat_tree.hpp"
#include "topo/order_search.hpp"
#include "topo/platform_loader.hpp"

namespace evb::topo {
namespace {

std::vector<int> first(int n) {
  std::vector<int> v(n);
  std::iota(v.begin(), v.end(), 0);
  return v;
}

Platform tree(int leaves, int ports, TreeRouting routing, int misplaced = 0) {
  FatTreeSpec s;
  s.leaves = leaves;
  s.ports = ports;
  s.uplinks = ports;
  s.spines = ports;
  s.routing = routing;
  s.misplaced = misplaced;
  s.seed = 3;
  Platform p = make_fat_tree(s, "test");
  p.finish();
  return p;
}

class IdealTree : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(IdealTree, BarrelShiftHasNoConflictsWithDModK) {
  const auto [leaves, ports] = GetParam();
  const Platform p = tree(leaves, ports, TreeRouting::d_mod_k);
  const ShiftScan scan = scan_barrel(p, first(p.host_count()));
  ASSERT_EQ(static_cast<int>(scan.steps.size()), p.host_count() - 1);
  EXPECT_EQ(scan.max_flows, 1);  // flows do cross the spines, one per link
  for (const auto& s : scan.steps) {
    EXPECT_LE(s.max_flows, 1) << "shift " << s.shift;
    EXPECT_EQ(s.conflicted_links, 0);
    EXPECT_EQ(s.crossing_flows, s.loaded_links / 2);  // one ISL up, one down per flow
  }
  EXPECT_DOUBLE_EQ(scan.efficiency(), 1.0);
}

INSTANTIATE_TEST_SUITE_P(Sizes, IdealTree,
                         ::testing::Values(std::tuple{2, 8}, std::tuple{4, 8}, std::tuple{4, 16},
                                           std::tuple{8, 8}));

TEST(ShiftScan, TheFlowsOfAStepMatchTheirRoutes) {
  const Platform p = tree(4, 4, TreeRouting::irregular);
  const auto order = first(p.host_count());
  for (int s : {1, 5, 9}) {
    const auto count = flows_per_link(p, order, s);
    int max_isl = 0;
    for (size_t l = 0; l < count.size(); ++l) {
      if (!p.inter_switch(static_cast<int>(l))) {
        EXPECT_LE(count[l], 1);  // a host sends and receives one flow per step
      } else {
        max_isl = std::max(max_isl, count[l]);
      }
    }
    EXPECT_EQ(scan_barrel(p, order).steps[s - 1].max_flows, max_isl);
  }
}

TEST(ShiftScan, IrregularRoutingConflictsAndTheProposalLowersTheMaximum) {
  const Platform p = tree(4, 16, TreeRouting::irregular);
  const ShiftScan scan = scan_barrel(p, first(64));
  EXPECT_GT(scan.max_flows, 1);
  // The ends of the scan stay conflict-free: one flow per leaf leaves it.
  EXPECT_EQ(scan.steps.front().max_flows, 1);
  EXPECT_EQ(scan.steps.back().max_flows, 1);
  SearchOptions opt;
  opt.seed = 1;
  const OrderProposal prop = propose_order(p, first(64), opt);
  EXPECT_LT(prop.scan.step_units, scan.step_units);
  EXPECT_LT(prop.scan.max_flows, scan.max_flows);
  auto sorted = prop.order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, first(64));  // a permutation of the same hosts
  EXPECT_EQ(scan_barrel(p, prop.order).step_units, prop.scan.step_units);
}

TEST(ShiftScan, MiscabledTreeConflictsAndTheProposalLowersTheMaximum) {
  const Platform p =
      load_platform(std::string(EVBENCH_SOURCE_DIR) + "/configs/platforms/miscabled-64.yaml");
  const int n = p.host_count();
  const ShiftScan scan = scan_barrel(p, first(n));
  EXPECT_GT(scan.max_flows, 1);
  const OrderProposal prop = propose_order(p, first(n), SearchOptions{});
  EXPECT_LT(prop.scan.max_flows, scan.max_flows);
  EXPECT_LT(prop.scan.step_units, scan.step_units);
}

TEST(ShiftScan, MisplacedHostsOnAnIdealTreeConflictUntilReordered) {
  const Platform p = tree(4, 8, TreeRouting::d_mod_k, 8);
  const ShiftScan scan = scan_barrel(p, first(32));
  EXPECT_GT(scan.max_flows, 1);
  const OrderProposal prop = propose_order(p, first(32), SearchOptions{});
  EXPECT_EQ(prop.scan.max_flows, 1);  // the cabling order is conflict-free again
}

TEST(ShiftScan, SelectionPrefersWholeLeaves) {
  FatTreeSpec s;
  s.leaves = 4;
  s.ports = 8;
  s.uplinks = 4;
  s.spines = 4;
  s.populated = {3, 8, 5, 8};
  Platform p = make_fat_tree(s, "test");
  p.finish();
  SearchOptions opt;
  opt.nodes = 16;
  opt.select = true;
  const OrderProposal prop = propose_order(p, first(p.host_count()), opt);
  ASSERT_EQ(prop.order.size(), 16u);
  for (int h : prop.order)  // the two full leaves
    EXPECT_TRUE(p.host(h).leaf == p.switches[1] || p.host(h).leaf == p.switches[3]);
  EXPECT_LE(prop.scan.max_flows, scan_barrel(p, first(16)).max_flows);
}

TEST(ShiftScan, EmulatedClusterShiftFourSendsEveryFlowOverTheUplink) {
  const Platform p =
      load_platform(std::string(EVBENCH_SOURCE_DIR) + "/configs/platforms/emulated-2x4.yaml");
  const ShiftScan scan = scan_barrel(p, first(8));
  // Shift s: min(s, 8 - s) ranks per bridge cross, each way.
  for (const auto& st : scan.steps) EXPECT_EQ(st.max_flows, std::min(st.shift, 8 - st.shift));
}

// The predicted rates of a one-to-one scan: every link is 1 Gbit/s, so a
// flow crossing the uplink with k others gets 1/k Gb/s, one inside a leaf
// its whole host link; the worst links of a shift are the uplink's two
// directions, named as `evbench topo` names them.
TEST(ShiftScan, PredictedRatesShareTheUplinkAmongItsFlows) {
  const Platform p =
      load_platform(std::string(EVBENCH_SOURCE_DIR) + "/configs/platforms/emulated-2x4.yaml");
  const std::vector<ShiftPrediction> pred = predict_shifts(p, first(8));
  ASSERT_EQ(pred.size(), 7u);
  for (const ShiftPrediction& sp : pred) {
    const int crossing = std::min(sp.shift, 8 - sp.shift);
    ASSERT_EQ(sp.per_node_gbps.size(), 8u);
    EXPECT_EQ(sp.max_flows, crossing);
    for (int dst = 0; dst < 8; ++dst) {
      const int src = (dst + 8 - sp.shift) % 8;
      const bool crosses = (src < 4) != (dst < 4);
      EXPECT_DOUBLE_EQ(sp.per_node_gbps[dst], crosses ? 1.0 / crossing : 1.0)
          << "shift " << sp.shift << " node " << dst;
    }
    if (crossing > 1) {
      ASSERT_EQ(sp.worst_links.size(), 2u);
      for (int l : sp.worst_links) EXPECT_TRUE(p.inter_switch(l)) << p.link_name(l);
    } else {
      EXPECT_TRUE(sp.worst_links.empty());
    }
  }
}

}  // namespace
}  // namespace evb::topo
