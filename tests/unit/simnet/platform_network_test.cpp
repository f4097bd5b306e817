// Test 7: the platform file's `network:` section: every key read, defaults
// when absent, bad values refused at load naming file:line:column and key,
// and the model runs with what the file says.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/error.hpp"
#include "shipped_platform.hpp"
#include "simnet_util.hpp"
#include "topo/platform_keys.hpp"
#include "topo/platform_loader.hpp"

namespace evb::simnet::test {
namespace {

const std::string kTree = "fat_tree: {leaves: 2, ports: 2, uplinks: 2, spines: 1}\n";

std::string error_of(const std::string& network) {
  try {
    topo::load_platform_text(kTree + network, "p.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SimnetPlatform, NetworkKeysAreReadWithTheirUnits) {
  const topo::Platform p = topo::load_platform_text(
      kTree +
          "network: {chunk: 16KiB, buffer: 1MiB, queueing: voq, switching: store-and-forward, "
          "infinite_buffers: true, flow_window: 3, virtual_lanes: 4, vl_map: destination}\n",
      "p.yaml");
  EXPECT_EQ(p.network.chunk_bytes, 16u * 1024);
  EXPECT_EQ(p.network.buffer_bytes, 1024u * 1024);
  EXPECT_EQ(p.network.queueing, Queueing::voq);
  EXPECT_EQ(p.network.switching, Switching::store_and_forward);
  EXPECT_TRUE(p.network.infinite_buffers);
  EXPECT_EQ(p.network.flow_window, 3u);
  EXPECT_EQ(p.network.virtual_lanes, 4);
  EXPECT_EQ(p.network.vl_map, topo::VlMap::destination);
  const NetworkParams& params = p.network;  // the model's own type
  EXPECT_EQ(params.chunk_bytes, 16u * 1024);
}

TEST(SimnetPlatform, DefaultsWhenTheSectionOrAKeyIsAbsent) {
  for (const std::string extra : {"", "network: {}\n", "network: {queueing: fifo}\n"}) {
    const topo::Platform p = topo::load_platform_text(kTree + extra, "p.yaml");
    EXPECT_EQ(p.network.chunk_bytes, 32u * 1024);
    EXPECT_EQ(p.network.buffer_bytes, 256u * 1024);
    EXPECT_EQ(p.network.queueing, Queueing::fifo);
    EXPECT_EQ(p.network.switching, Switching::cut_through);
    EXPECT_FALSE(p.network.infinite_buffers);
    EXPECT_EQ(p.network.flow_window, 0u);
    EXPECT_EQ(p.network.virtual_lanes, 1);
    EXPECT_EQ(p.network.vl_map, topo::VlMap::traffic);
  }
  // The shipped platforms say nothing of it.
  EXPECT_EQ(shipped("fat-tree-64.yaml").network.chunk_bytes, NetworkParams{}.chunk_bytes);
}

TEST(SimnetPlatform, BadValuesAreRefusedNamingFileLineAndKey) {
  EXPECT_EQ(error_of("network: {queueing: lifo}\n"),
            "p.yaml:2:21: network.queueing: expected fifo or voq, got 'lifo'");
  EXPECT_EQ(error_of("network:\n  switching: wormhole\n"),
            "p.yaml:3:14: network.switching: expected cut-through or store-and-forward, got "
            "'wormhole'");
  EXPECT_NE(error_of("network: {chunk: 64 apples}\n")
                .find("p.yaml:2:18: network.chunk: unknown size unit 'apples'"),
            std::string::npos);
  EXPECT_NE(error_of("network: {chunk: 0}\n")
                .find("p.yaml:2:18: network.chunk: expected 1 B .. 1 GiB, got 0 B"),
            std::string::npos);
  EXPECT_NE(error_of("network: {chunk: 2GiB}\n").find("network.chunk: expected 1 B .. 1 GiB"),
            std::string::npos);
  EXPECT_NE(error_of("network: {infinite_buffers: maybe}\n")
                .find("p.yaml:2:29: network.infinite_buffers: expected true or false"),
            std::string::npos);
  for (const char* w : {"-1", "two", "1.5", "1048577"})
    EXPECT_EQ(error_of(std::string("network: {flow_window: ") + w + "}\n"),
              std::string("p.yaml:2:24: network.flow_window: expected a whole number of chunks, 0 "
                          "(no window) .. 1048576, got '") +
                  w + "'")
        << w;
  for (const char* n : {"0", "16", "two"})
    EXPECT_NE(error_of(std::string("network: {virtual_lanes: ") + n + "}\n")
                  .find("p.yaml:2:26: network.virtual_lanes: "),
              std::string::npos)
        << n;
  EXPECT_EQ(error_of("network: {virtual_lanes: 16}\n"),
            "p.yaml:2:26: network.virtual_lanes: 16 is outside 1 .. 15");
  EXPECT_EQ(error_of("network: {vl_map: source}\n"),
            "p.yaml:2:19: network.vl_map: expected traffic or destination, got 'source'");
  EXPECT_NE(error_of("network: {chunk: 64KiB, buffer: 32KiB}\n")
                .find("p.yaml:2:33: network.buffer: 32 KiB holds no chunk of 64 KiB"),
            std::string::npos);
  // ... unless no buffer ever fills.
  EXPECT_EQ(error_of("network: {chunk: 64KiB, buffer: 32KiB, infinite_buffers: true}\n"),
            "(no error)");
  EXPECT_NE(error_of("network: {bufer: 1MiB}\n").find("network.bufer: unknown key (did you mean"),
            std::string::npos);
  EXPECT_NE(error_of("network: voq\n").find("network: expected a map"), std::string::npos);
}

TEST(SimnetPlatform, EveryNetworkKeyIsDocumented) {
  const std::string table = topo::platform_reference_markdown();
  for (const char* key : {"network", "network.chunk", "network.buffer", "network.queueing",
                          "network.switching", "network.infinite_buffers", "network.flow_window",
                          "network.virtual_lanes", "network.vl_map"})
    EXPECT_NE(table.find(std::string("| `") + key + "` |"), std::string::npos) << key;
}

TEST(SimnetPlatform, TheModelRunsWithTheFilesSettings) {
  const topo::Platform p = topo::load_platform_text(
      kTree + "network: {chunk: 1000, switching: store-and-forward}\n", "p.yaml");
  CreditNetwork net(p, p.network);
  net.send(0, 3, 1000, 0);  // 4 links, one chunk of 80 ns each, 100 ns latency
  const auto out = drain(net);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].time_ns, 4 * (80 + 100));
}

// Routes come from the platform model, whatever loaded it: a fabric dump
// (ibnetdiscover + dump_lfts, tests/unit/topo/data/) is routed by its own
// tables. There leaf-a sends node3 (LID 13) up port 3 to spine-1 and node10
// (LID 14) up port 4 to spine-2; leaf-b sends node1 (LID 11) up port 4.
TEST(SimnetPlatform, AFabricDumpIsRoutedByItsForwardingTables) {
  const topo::Platform p =
      topo::load_platform(std::string(EVBENCH_SOURCE_DIR) + "/tests/unit/topo/data/fabric.yaml");
  ASSERT_EQ(p.host_count(), 4);
  const int node1 = p.find_host("node1"), node2 = p.find_host("node2");
  const int node3 = p.find_host("node3"), node10 = p.find_host("node10");
  CreditNetwork net(p, p.network);
  net.send(node1, node3, 1 << 20, 0);
  net.send(node2, node10, 3 << 20, 0);
  net.send(node3, node1, 5 << 20, 0);
  ASSERT_EQ(drain(net).size(), 3u);
  std::map<std::string, uint64_t> isl;
  for (int l = 0; l < static_cast<int>(p.links.size()); ++l)
    if (p.inter_switch(l) && net.link_stats()[l].bytes > 0)
      isl[p.link_name(l)] = net.link_stats()[l].bytes;
  const std::map<std::string, uint64_t> want = {
      {"leaf-a:3->spine-1:1", 1 << 20}, {"spine-1:2->leaf-b:3", 1 << 20},
      {"leaf-a:4->spine-2:1", 3 << 20}, {"spine-2:2->leaf-b:4", 3 << 20},
      {"leaf-b:4->spine-2:2", 5 << 20}, {"spine-2:1->leaf-a:4", 5 << 20}};
  EXPECT_EQ(isl, want);
}

}  // namespace
}  // namespace evb::simnet::test
