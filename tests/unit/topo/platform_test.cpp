// The platform model: generated trees, routes from tables, the YAML loader's
// errors and the fabric-dump reader.
#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "support/source_dir.hpp"
#include "topo/fat_tree.hpp"
#include "topo/platform_loader.hpp"

namespace evb::topo {
namespace {

const std::string kData = std::string(EVBENCH_SOURCE_DIR) + "/tests/unit/topo/data/";

std::string error_of(const std::string& yaml) {
  try {
    load_platform_text(yaml, "p.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<std::string> route_names(const Platform& p, const std::string& a,
                                     const std::string& b) {
  std::vector<std::string> out;
  for (int l : p.route(p.find_host(a), p.find_host(b))) out.push_back(p.link_name(l));
  return out;
}

TEST(Platform, FatTreeRoutesGoUpAndDownThroughTheDModKUplink) {
  FatTreeSpec s;
  s.leaves = 2;
  s.ports = 4;
  s.uplinks = 4;
  s.spines = 2;
  Platform p = make_fat_tree(s, "test");
  p.finish();
  ASSERT_EQ(p.host_count(), 8);
  // node002 (leaf0 port 2) -> node007 (leaf1 port 3, q = 2): uplink 2 -> spine 0, cable 1.
  EXPECT_EQ(route_names(p, "node002", "node007"),
            (std::vector<std::string>{"node002:1->leaf0:2", "leaf0:7->spine0:2",
                                      "spine0:4->leaf1:7", "leaf1:3->node007:1"}));
  EXPECT_EQ(p.route(1, 2).size(), 2u);  // same leaf: up and down only
  EXPECT_TRUE(p.route(3, 3).empty());
  for (size_t l = 0; l < p.links.size(); ++l)
    EXPECT_EQ(p.links[p.links[l].reverse].reverse, static_cast<int>(l));
}

TEST(Platform, MisplacedHostsLeaveTheNameOrderOutOfCablingOrder) {
  FatTreeSpec s;
  s.leaves = 4;
  s.ports = 8;
  s.uplinks = 8;
  s.spines = 4;
  s.misplaced = 6;
  s.populated = {8, 6, 8, 5};
  s.holes = {{0, 2}};
  Platform p = make_fat_tree(s, "test");
  p.finish();
  EXPECT_EQ(p.host_count(), 8 + 6 + 8 + 5 - 1);
  std::vector<int> identity(p.host_count());
  for (int h = 0; h < p.host_count(); ++h) identity[h] = h;
  EXPECT_NE(p.cabling_order(), identity);
  for (int h = 0; h < p.host_count(); ++h)  // the hole: leaf 0, port 3 (0-based 2)
    EXPECT_FALSE(p.host(h).leaf == p.switches[0] && p.host(h).leaf_port == 3);
}

TEST(Platform, ShortestRoutingCrossesTheOneUplinkOfTheEmulatedCluster) {
  const Platform p =
      load_platform(std::string(EVBENCH_SOURCE_DIR) + "/configs/platforms/emulated-2x4.yaml");
  ASSERT_EQ(p.host_count(), 8);
  EXPECT_EQ(route_names(p, "evh1", "evh6"),
            (std::vector<std::string>{"evh1:1->br0:1", "br0:5->br1:5", "br1:2->evh6:1"}));
  EXPECT_EQ(p.links[p.route(0, 5)[1]].bandwidth, 1e9);
}

TEST(Platform, ExamplePlatformsLoad) {
  for (const char* f :
       {"fat-tree-64", "fat-tree-512", "irregular-512", "miscabled-64", "director-96",
        "fat-tree-3level-128", "oversubscribed-2to1-64", "emulated-2x4"}) {
    SCOPED_TRACE(f);
    const Platform p =
        load_platform(std::string(EVBENCH_SOURCE_DIR) + "/configs/platforms/" + f + ".yaml");
    EXPECT_GE(p.host_count(), 8);
    const int n = p.host_count();
    EXPECT_FALSE(p.route(0, n - 1).empty());
  }
}

TEST(PlatformLoader, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(error_of("name: x\nfat_tree:\n  leaves: 2\n  portz: 4\n"),
            "p.yaml:4:3: fat_tree.portz: unknown key (did you mean 'ports'?)");
  EXPECT_EQ(error_of("fat_tree: {leaves: 2, ports: 4, uplinks: 4, spines: 2}\nlinks:\n  host: "
                     "{bandwidth: fast}\n"),
            "p.yaml:3:21: links.host.bandwidth: expected a positive rate such as 100Gbit/s, "
            "25Gb/s or 800Mbit/s, got 'fast'");
  EXPECT_EQ(error_of("fat_tree: {leaves: 2, ports: 4, uplinks: 3, spines: 2}\n"),
            "p.yaml:1:11: fat_tree: uplinks (3) must be a multiple of spines (2)");
  EXPECT_EQ(error_of("fat_tree: {leaves: 2, ports: 4, uplinks: 2, spines: 2}\nrouting: ecmp\n"),
            "p.yaml:2:10: routing: expected d-mod-k or irregular for a fat_tree, got 'ecmp'");
  EXPECT_EQ(error_of("switches: [s0]\nhosts:\n  - {name: a, switch: s0, port: 1}\n  - {name: b, "
                     "switch: s1, port: 2}\n"),
            "p.yaml:4:23: hosts.switch: no switch named 's1'");
  EXPECT_EQ(error_of("switches: [s0]\nhosts:\n  - {name: a, switch: s0, port: 1}\n  - {name: b, "
                     "switch: s0, port: 2}\nrouting: tables\ntables:\n  s0: {a: 1, b: 7}\n"),
            "p.yaml:7:17: tables.s0.b: port 7 of s0 has nothing cabled");
  EXPECT_EQ(
      error_of("switches: [s0, s1]\nhosts:\n  - {name: a, switch: s0, port: 1}\n  - {name: b, "
               "switch: s1, port: 1}\ncables:\n  - {a: s0, a_port: 1, b: s1, b_port: 2}\n"),
      "p.yaml:6:21: cables.a_port: port 1 of s0 is cabled twice");
  // A table without an entry: finish() names the switch and the pair.
  EXPECT_NE(error_of("switches: [s0]\nhosts:\n  - {name: a, switch: s0, port: 1}\n  - {name: b, "
                     "switch: s0, port: 2}\nrouting: tables\ntables:\n  s0: {a: 1}\n")
                .find("switch s0: route a -> b: no forwarding-table entry"),
            std::string::npos);
}

TEST(PlatformLoader, OrderFileErrorsNameTheLine) {
  const Platform p =
      load_platform(std::string(EVBENCH_SOURCE_DIR) + "/configs/platforms/emulated-2x4.yaml");
  EXPECT_EQ(parse_order(p, "evh2\n# comment\n\nevh1\n", "o.txt"), (std::vector<int>{1, 0}));
  try {
    parse_order(p, "evh2\nevh1\nnode9\n", "o.txt");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "o.txt:3: host 'node9' is not in the platform emulated-2x4");
  }
  try {
    parse_order(p, "evh2\nevh2\n", "o.txt");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "o.txt:2: host 'evh2' is listed twice");
  }
}

TEST(FabricDump, ReproducesTheRoutesOfTheHandWrittenFabric) {
  const Platform dump = load_platform(kData + "fabric.yaml");
  const Platform yaml = load_platform(kData + "fabric-explicit.yaml");
  ASSERT_EQ(dump.host_count(), 4);
  // Natural name order, whatever order the dump lists the adapters in.
  EXPECT_EQ(dump.host(0).name, "node1");
  EXPECT_EQ(dump.host(3).name, "node10");
  EXPECT_EQ(dump.links[dump.host(0).uplink].bandwidth, 100e9);  // 4xEDR
  EXPECT_DOUBLE_EQ(dump.links[dump.host(0).uplink].latency, 200e-9);
  EXPECT_EQ(dump.nodes[dump.find_node("leaf-b")].level, 1);  // from the distance to hosts
  EXPECT_EQ(dump.nodes[dump.find_node("spine-2")].level, 2);
  for (const char* a : {"node1", "node2", "node3", "node10"})
    for (const char* b : {"node1", "node2", "node3", "node10"}) {
      SCOPED_TRACE(std::string(a) + " -> " + b);
      EXPECT_EQ(route_names(dump, a, b), route_names(yaml, a, b));
    }
  // leaf-b sends node2's traffic up port 3 (spine-1), node1's up port 4.
  EXPECT_EQ(route_names(dump, "node10", "node2")[1], "leaf-b:3->spine-1:2");
  EXPECT_EQ(route_names(dump, "node10", "node1")[1], "leaf-b:4->spine-2:2");
}

TEST(FabricDump, ErrorsNameTheLine) {
  try {
    read_fabric_text(
        "Switch\t4 \"S-01\"\t\t# \"s\" enhanced port 0 lid 1 lmc 0\n[999]\t\"S-02\"[1]\n", "t.topo",
        "", "t.lfts");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "t.topo:2: port 999 is out of range (max 255)");
  }
  try {
    read_fabric_text("Switch\t4 \"S-01\"\t\t# \"s\" enhanced port 0 lid 1 lmc 0\n[1] garbage\n",
                     "t.topo", "", "t.lfts");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("t.topo:2: cannot read this port line"), std::string::npos)
        << e.what();
  }
  try {
    read_fabric_text("Switch\t4 \"S-01\"\t\t# \"s\" enhanced port 0 lid 1 lmc 0\n", "t.topo",
                     "x\nUnicast lids [0x0-0x1] of switch Lid 9 guid 0x0000000000000077 (z):\n",
                     "t.lfts");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(
        std::string(e.what()).find("t.lfts:2: switch guid 0x0000000000000077 is not in t.topo"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace evb::topo
