// The memory check before a run (apps/evbench/memory_plan.hpp): the parts
// come from the units' own sizing functions, the host share follows the
// bootstrap and the launcher's variables, and a shortfall is one line naming
// the key that sizes the largest part, the figure needed and the figure
// available.
#include "apps/evbench/memory_plan.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/config_loader.hpp"
#include "core/topology.hpp"
#include "real_plugins.hpp"
#include "units/builder_unit.hpp"
#include "units/readout_unit.hpp"

namespace evb {
namespace {

using MemoryPlan = test::WithDefaultDriver;

// What the selected protocol's units allocate (its factory's memory_needs).
MemoryNeeds needs_of(const Config& c) {
  return test::real_protocols().of(c).memory_needs;
}

Config load(const std::vector<std::string>& sets) {
  return load_config_text("", "test.yaml", sets, test::real_plugins());
}

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

const HostNeed::Part* part(const HostNeed& n, const std::string& what) {
  for (const auto& p : n.parts)
    if (p.what == what) return &p;
  return nullptr;
}

TEST(MemoryPlanText, MemAvailableIsReadInBytes) {
  const std::string meminfo =
      "MemTotal:       32768000 kB\nMemFree:  1000 kB\nMemAvailable:   24012345 kB\n";
  ASSERT_TRUE(mem_available_bytes(meminfo).has_value());
  EXPECT_EQ(*mem_available_bytes(meminfo), 24012345ull * 1024);
  EXPECT_FALSE(mem_available_bytes("MemTotal: 1 kB\n").has_value());
}

TEST(MemoryPlanText, HumanBytes) {
  EXPECT_EQ(human_bytes(16ull << 30), "16 GiB");
  EXPECT_EQ(human_bytes((64ull << 30) + (300ull << 20)), "64.3 GiB");
  EXPECT_EQ(human_bytes(1ull << 40), "1 TiB");
  EXPECT_EQ(human_bytes(1000), "1000 B");
}

TEST_F(MemoryPlan, LocalRanksCountTheUnitsOwnSizes) {
  const Config c = load({"nodes=4", "ru_buffer=16GiB", "bootstrap=local", "page_size=normal"});
  const Topology t = make_topology(c);
  const HostShare share = ranks_on_this_host(c, t, env_of({}), needs_of(c));
  ASSERT_EQ(share.ranks.size(), static_cast<size_t>(t.nprocs));
  EXPECT_TRUE(share.scope.empty());
  const HostNeed need = host_memory_need(c, t, share.ranks, needs_of(c));
  const auto* ring = part(need, "RU ring");
  const auto* windows = part(need, "BU windows");
  ASSERT_NE(ring, nullptr);
  ASSERT_NE(windows, nullptr);
  EXPECT_EQ(ring->count, 4);
  EXPECT_EQ(ring->each, ReadoutUnit::ring_bytes(c, 0));  // page-aligned already
  EXPECT_EQ(windows->count, 4);
  EXPECT_EQ(windows->each, BuilderUnit::memory_bytes(c));
  EXPECT_EQ(need.parts.front().what, "RU ring");  // largest first
  uint64_t sum = 0;
  for (const auto& p : need.parts) sum += p.total;
  EXPECT_EQ(sum, need.total);
  EXPECT_GE(need.total, 4 * (16ull << 30));
}

// Congestors (background:) are ranks of the host too: an incast's target
// holds in_flight receives of `size` per source, each sender its message
// and its ack receives; none of it without background.
TEST_F(MemoryPlan, CongestorBuffersAreCounted) {
  const Config none = load({"nodes=2", "bootstrap=local", "page_size=normal"});
  const Topology t0 = make_topology(none);
  const HostNeed without = host_memory_need(
      none, t0, ranks_on_this_host(none, t0, env_of({}), needs_of(none)).ranks, needs_of(none));
  EXPECT_EQ(part(without, "background buffers"), nullptr);

  const Config c = load({"nodes=2", "bootstrap=local", "page_size=normal",
                         "background=[{pattern: incast, ranks: 3, size: 1MiB, in_flight: 8}]"});
  const Topology t = make_topology(c);
  const HostShare share = ranks_on_this_host(c, t, env_of({}), needs_of(c));
  ASSERT_EQ(share.ranks.size(), static_cast<size_t>(t.processes()));
  const HostNeed need = host_memory_need(c, t, share.ranks, needs_of(c));
  const auto* bg = part(need, "background buffers");
  ASSERT_NE(bg, nullptr);
  EXPECT_EQ(bg->count, 3);
  const uint64_t size = c.background[0].size;
  const uint64_t in_flight = static_cast<uint64_t>(c.background[0].in_flight);
  // The target: its message buffer and in_flight receives from each of 2 senders.
  const uint64_t target = size + 2 * in_flight * size;
  // Each sender: its message, a small receive, its ack receives (one page).
  const uint64_t sender = size + 2 * 4096;
  EXPECT_EQ(bg->total, target + 2 * sender);
  EXPECT_EQ(bg->each, 0u);  // the target's differ from the senders'
  EXPECT_EQ(need.total, without.total + bg->total);
}

// Huge pages: blocks are mapped in whole 2 MiB pages.
TEST_F(MemoryPlan, HugePagesRoundUpTo2MiB) {
  const Config c = load({"nodes=4", "bootstrap=local", "page_size=huge"});
  const Topology t = make_topology(c);
  const HostNeed need =
      host_memory_need(c, t, ranks_on_this_host(c, t, env_of({}), needs_of(c)).ranks, needs_of(c));
  const uint64_t huge = 2ull << 20;
  ASSERT_NE(part(need, "BU windows"), nullptr);
  EXPECT_EQ(part(need, "BU windows")->each,
            (BuilderUnit::memory_bytes(c) + huge - 1) / huge * huge);
}

TEST_F(MemoryPlan, ShortfallNamesTheKeyAndBothFigures) {
  const Config c = load({"nodes=4", "ru_buffer=16GiB", "bootstrap=local"});
  const Topology t = make_topology(c);
  const HostShare share = ranks_on_this_host(c, t, env_of({}), needs_of(c));
  const HostNeed need = host_memory_need(c, t, share.ranks, needs_of(c));
  const uint64_t available = static_cast<uint64_t>(22.9 * (1ull << 30));
  const std::string msg = memory_shortfall(need, available, share);
  EXPECT_EQ(msg.rfind("ru_buffer: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("needed on this host (5 ranks, local bootstrap)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("4 × 16 GiB RU ring"), std::string::npos) << msg;
  EXPECT_NE(msg.find("22.9 GiB available"), std::string::npos) << msg;
  EXPECT_NE(msg.find("lower ru_buffer or nodes"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_EQ(memory_shortfall(need, need.total, share), "");  // exactly enough fits
}

TEST_F(MemoryPlan, EnvBootstrapChecksThisNodesRanks) {
  // layout split: ranks 2n, 2n+1 are node n's RU and BU.
  const Config c = load({"nodes=4", "layout=split", "bootstrap=env", "protocol=pull-noevm"});
  const Topology t = make_topology(c);
  const HostShare share = ranks_on_this_host(c, t, env_of({{"EVBENCH_RANK", "3"}}), needs_of(c));
  EXPECT_EQ(share.ranks, (std::vector<int>{2, 3}));
  EXPECT_NE(share.scope.find("this host's share (node 1"), std::string::npos) << share.scope;
  const HostNeed need = host_memory_need(c, t, share.ranks, needs_of(c));
  ASSERT_NE(part(need, "RU ring"), nullptr);
  EXPECT_EQ(part(need, "RU ring")->count, 1);
  EXPECT_EQ(part(need, "BU windows")->count, 1);
}

TEST_F(MemoryPlan, LauncherLocalRanksWin) {
  const Config c = load({"nodes=4", "bootstrap=env", "protocol=pull-noevm"});
  const Topology t = make_topology(c);
  const HostShare share = ranks_on_this_host(c, t,
                                             env_of({{"OMPI_COMM_WORLD_RANK", "3"},
                                                     {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                                     {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}}),
                                             needs_of(c));
  EXPECT_EQ(share.ranks, (std::vector<int>{2, 3}));
}

TEST_F(MemoryPlan, MicroBenchmarksCountPoolAndArena) {
  const Config c = load({"nodes=4", "protocol=many-to-one", "ru_buffer=1GiB", "bootstrap=local"});
  const Topology t = make_topology(c);
  const HostNeed need =
      host_memory_need(c, t, ranks_on_this_host(c, t, env_of({}), needs_of(c)).ranks, needs_of(c));
  ASSERT_NE(part(need, "send pool"), nullptr);
  EXPECT_EQ(part(need, "send pool")->each, 1ull << 30);
  ASSERT_NE(part(need, "receive arena"), nullptr);
  EXPECT_EQ(part(need, "receive arena")->each, 0u);  // BU 0 receives from all, the others none
}

}  // namespace
}  // namespace evb
