// What `evbench sim` hands SimGrid: rank placement on the platform's hosts,
// the routes file built from the topology model, and its reader's errors.
#include "apps/evbench/sim_platform.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "topo/platform_loader.hpp"

namespace evb {
namespace {

const char* kTwoLeaves = R"(
name: two-leaves
switches: [leaf0, leaf1]
hosts:
  - {name: a, switch: leaf0, port: 1}
  - {name: b, switch: leaf0, port: 2}
  - {name: c, switch: leaf1, port: 1}
  - {name: d, switch: leaf1, port: 2}
cables:
  - {a: leaf0, a_port: 3, b: leaf1, b_port: 3}
routing: shortest
links:
  host: {bandwidth: 8Gbit/s, latency: 1us}
  switch: {bandwidth: 16Gbit/s, latency: 1us}
)";

Topology topology(int nodes, EvmPlacement evm) {
  Config c;
  c.nodes = nodes;
  c.evm = evm;
  return make_topology(c);
}

// A file name private to this test process, removed at the end.
struct TempFile {
  std::string path = "/tmp/evbench-sim-test-" + std::to_string(::getpid());
  ~TempFile() { std::remove(path.c_str()); }
};

TEST(SimPlacement, NodesTakeTheOrderAndADedicatedEvmTheNextHost) {
  const Topology t = topology(2, EvmPlacement::dedicated);
  const SimPlacement p = place_ranks(t, {3, 1, 0}, "p.yaml");
  ASSERT_EQ(p.rank_host.size(), 3u);
  EXPECT_EQ(p.rank_host[0], 3);
  EXPECT_EQ(p.rank_host[1], 1);
  EXPECT_EQ(p.rank_host[2], 0);  // the EVM's own host
  EXPECT_FALSE(p.evm_shares_host);
}

TEST(SimPlacement, DedicatedEvmSharesNodeZerosHostWhenNoneIsLeft) {
  const Topology t = topology(2, EvmPlacement::dedicated);
  const SimPlacement p = place_ranks(t, {1, 0}, "p.yaml");
  EXPECT_EQ(p.rank_host[2], 1);
  EXPECT_TRUE(p.evm_shares_host);
  EXPECT_EQ(p.used.size(), 2u);
}

TEST(SimPlacement, TooFewHostsIsAConfigErrorNamingThePlatform) {
  const Topology t = topology(4, EvmPlacement::with_rank0);
  try {
    place_ranks(t, {0, 1}, "small.yaml");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("small.yaml offers 2 hosts"), std::string::npos)
        << e.what();
  }
}

TEST(SimPlacement, CongestorsTakeTheHostsAfterTheEventBuilders) {
  Config c;
  c.nodes = 2;
  c.evm = EvmPlacement::dedicated;
  c.background = {BackgroundSpec{}, BackgroundSpec{}};
  c.background[0].ranks = 2;
  c.background[1].ranks = 3;
  const Topology t = make_topology(c);
  const SimPlacement p = place_ranks(t, {7, 6, 5, 4, 3, 2, 1, 0}, "p.yaml");
  ASSERT_EQ(p.rank_host.size(), 8u);
  EXPECT_EQ(p.rank_host[2], 5);  // the dedicated EVM
  for (int r = 3; r < 8; ++r) EXPECT_EQ(p.rank_host[r], 7 - r) << "congestor rank " << r;
  EXPECT_EQ(p.used.size(), 8u);
}

// `ranks: 50%`: each congestor on the host of the builder node it stands
// for (spread: nodes 0 and 2 of 4), beside the builder's rank; a count
// after it still takes the hosts after the builder's.
TEST(SimPlacement, AShareOfHostsSitsOnTheBuildersHosts) {
  Config c;
  c.nodes = 4;
  c.evm = EvmPlacement::with_rank0;
  c.background = {BackgroundSpec{}, BackgroundSpec{}};
  c.background[0].ranks = 2;
  c.background[0].hosts_percent = 50;
  c.background[1].ranks = 2;
  const Topology t = make_topology(c);
  const SimPlacement p = place_ranks(t, {7, 6, 5, 4, 3, 2, 1, 0}, "p.yaml");
  ASSERT_EQ(p.rank_host.size(), 8u);
  EXPECT_EQ(p.rank_host[4], p.rank_host[0]);  // member 0 beside node 0's rank
  EXPECT_EQ(p.rank_host[5], p.rank_host[2]);  // member 1 beside node 2's rank
  EXPECT_EQ(p.rank_host[6], 3);               // the count's: hosts 5 and 6 of the order
  EXPECT_EQ(p.rank_host[7], 2);
  EXPECT_EQ(p.used.size(), 6u);
  // Too few hosts names the count's ranks only.
  try {
    place_ranks(t, {0, 1, 2, 3, 4}, "small.yaml");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("background: 2 congestor ranks need hosts 5 to 6", 0), 0u)
        << e.what();
  }
}

TEST(SimPlacement, CongestorsWithoutHostsAreAConfigErrorNamingBackground) {
  Config c;
  c.nodes = 2;
  c.evm = EvmPlacement::with_rank0;
  c.background = {BackgroundSpec{}};
  c.background[0].ranks = 3;
  const Topology t = make_topology(c);
  try {
    place_ranks(t, {0, 1, 2, 3}, "small.yaml");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("background: 3 congestor ranks need hosts 3 to 5", 0), 0u) << what;
    EXPECT_NE(what.find("small.yaml offers 4 hosts"), std::string::npos) << what;
  }
}

TEST(SimPlatform, RoutesFollowTheModelAndBandwidthIsInBytes) {
  const topo::Platform p = topo::load_platform_text(kTwoLeaves, "two.yaml");
  const sim::SimPlatform s = sim_platform(p, {0, 2}, true);
  ASSERT_EQ(s.hosts.size(), 2u);
  EXPECT_EQ(s.hosts[0], "a");
  EXPECT_EQ(s.hosts[1], "c");
  ASSERT_EQ(s.routes.size(), 2u);  // a->c and c->a
  // host link, inter-leaf link, host link; only links some route uses.
  EXPECT_EQ(s.routes[0].links.size(), 3u);
  EXPECT_EQ(s.links.size(), 6u);
  EXPECT_DOUBLE_EQ(s.links[s.routes[0].links[0]].bandwidth, 1e9);  // 8 Gbit/s
  EXPECT_DOUBLE_EQ(s.links[s.routes[0].links[1]].bandwidth, 2e9);  // 16 Gbit/s
  for (const auto& l : s.links) EXPECT_EQ(l.latency, 0.0);
  const sim::SimPlatform kept = sim_platform(p, {0, 2}, false);
  EXPECT_DOUBLE_EQ(kept.links[0].latency, 1e-6);
}

TEST(RoutesFile, RoundTrips) {
  const topo::Platform p = topo::load_platform_text(kTwoLeaves, "two.yaml");
  const sim::SimPlatform s = sim_platform(p, {0, 1, 2, 3}, true);
  TempFile f;
  sim::write_routes_file(s, f.path);
  const sim::SimPlatform back = sim::read_routes_file(f.path);
  EXPECT_EQ(back.hosts, s.hosts);
  ASSERT_EQ(back.links.size(), s.links.size());
  EXPECT_DOUBLE_EQ(back.links[0].bandwidth, s.links[0].bandwidth);
  ASSERT_EQ(back.routes.size(), s.routes.size());
  for (size_t i = 0; i < s.routes.size(); ++i) EXPECT_EQ(back.routes[i].links, s.routes[i].links);
}

TEST(RoutesFile, BadRecordNamesFileAndLine) {
  TempFile f;
  std::ofstream(f.path) << "evbench-simroutes 1\nhost a\nlink l0 1e9 0\nroute 0 1 0\n";
  try {
    sim::read_routes_file(f.path);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(f.path + ":4: bad host index"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace evb
