// Over 64 nodes the EVM's rank keeps the traffic matrix by RU group, as the
// BUs send it: a row names an RU group, rows past the groups are refused,
// and the served matrix sums each BU group's columns of those rows.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <bit>
#include <memory>
#include <string>
#include <vector>

#include "../support/command_outcome.hpp"
#include "../support/recording_driver.hpp"
#include "core/clock.hpp"
#include "core/topology.hpp"
#include "protocols/event_building/event_building_live.hpp"
#include "protocols/monitor/monitor_hub.hpp"
#include "protocols/monitor/traffic.hpp"
#include "protocols/pull/pull.hpp"

namespace evb {
namespace {

constexpr int kNodes = 100;  // groups of 7: 15 a side, the last of 2 units

// The EVM's rank of a 100-node run (rubu layout, a dedicated EVM rank).
struct LargeEvmRank {
  Config c = [] {
    Config k;
    k.nodes = kNodes;
    k.parallel = 1;
    k.credits = 2;
    k.fragment.size = 4096;
    k.fragment.max_size = 16384;
    k.monitor.port = 1;  // not served: the agents only
    return k;
  }();
  Topology topo = make_topology(c);
  test_support::RecordingDriver driver;
  Engine engine{driver, topo.evm_rank, c, PollMode::busy, names(topo)};
  EventBuildingStats stats;
  pull::PullEvmAgent evm{engine, topo, stats, false};

  static std::vector<std::string> names(const Topology& t) {
    std::vector<std::string> n;
    for (size_t r = 0; r < t.ranks.size(); ++r) n.push_back("rank " + std::to_string(r));
    return n;
  }
};

Command row(uint32_t bu, uint32_t first, uint32_t count, uint64_t bytes, double end_s) {
  Command c{.type = CommandType::stats,
            .event_id = bytes,
            .slot = static_cast<uint32_t>(MonitorStat::matrix),
            .bu = bu,
            .ru = first,
            .count = count,
            .bytes = bytes,
            .value = bytes};
  c.pad[0] = std::bit_cast<uint64_t>(s_to_ns(end_s - 1));
  c.pad[1] = std::bit_cast<uint64_t>(s_to_ns(end_s));
  return c;
}

TEST(MonitorHubGroups, TheMatrixIsKeptAndServedByRuGroup) {
  LargeEvmRank r;
  const auto groups = static_cast<uint32_t>(matrix_groups(kNodes));
  ASSERT_EQ(matrix_rows(kNodes), groups);
  MonitorState state("", ControlLimits{});
  MonitorHub hub(r.engine, r.topo,
                 std::make_unique<evb::EventBuildingHubView>(r.engine, r.topo, r.evm, r.stats),
                 state, {"pull", "tcp", "send"}, true);
  const PeerId bu9 = r.topo.bu_rank[9];
  // Rows are RU groups: the last three are rows groups-3 .. groups-1; one
  // more row is outside.
  EXPECT_EQ(test_support::command_outcome(hub, bu9, row(9, groups - 3, 3, 700, 1)), "accepted");
  EXPECT_NE(test_support::command_outcome(hub, bu9, row(9, groups - 2, 3, 700, 1)).find("refused"),
            std::string::npos);
  // BU 9 (BU group 1) got 700 bytes from each of the RU groups 0, 1 and 2.
  EXPECT_EQ(test_support::command_outcome(hub, bu9, row(9, 0, 3, 700, 1)), "accepted");
  hub.start(0);
  hub.on_tick(s_to_ns(1.0));
  const YAML::Node m = YAML::Load(state.state_json())["matrix"];
  ASSERT_EQ(m["bytes"].size(), groups);
  EXPECT_EQ(m["group_size"].as<size_t>(), matrix_group_size(kNodes));
  for (uint32_t g = 0; g < groups; ++g) {
    const bool sent = g < 3 || g >= groups - 3;
    EXPECT_EQ(m["bytes"][g][1].as<uint64_t>(), sent ? 700u : 0u) << g;
    EXPECT_EQ(m["bytes"][g][0].as<uint64_t>(), 0u) << g;
  }
}

}  // namespace
}  // namespace evb
