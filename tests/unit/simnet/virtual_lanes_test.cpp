// Virtual lanes (network.virtual_lanes, network.vl_map): each switch input
// port holds network.buffer per lane, with credits and a queue of its own,
// so a full lane does not stop another; one lane is the model without them.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <vector>

#include "core/error.hpp"
#include "simnet_util.hpp"

namespace evb::simnet::test {
namespace {

constexpr uint64_t kChunk = 32 * 1024;
const double kChunkNs = kChunk * 8 / (100 * kGbit) * 1e9;  // 2621 ns

// Two switches, one cable between them: host A alone on s1; on s2 the hot
// host H, the cold host C and three more senders B1..B3.
enum { kA = 0, kH = 1, kC = 2, kB1 = 3, kBs = 3 };
topo::Platform two_switches() {
  topo::Platform p;
  p.name = "two-switches";
  const int s1 = p.add_switch("s1", 1), s2 = p.add_switch("s2", 1);
  p.connect(p.add_host("a"), 1, s1, 1, 100 * kGbit, 100e-9);
  for (const char* h : {"h", "c", "b1", "b2", "b3"})
    p.connect(p.add_host(h), 1, s2, p.host_count() + 1, 100 * kGbit, 100e-9);
  p.connect(s1, 2, s2, 1, 100 * kGbit, 100e-9);
  topo::fill_shortest_tables(p);
  p.finish();
  return p;
}

// A and B1..B3 each send 2 MiB to H at 0 (H's downlink serves them in turn,
// so the buffers on A's path fill with chunks for H); A sends a 64-byte
// command to C once they are full. Returns the command's delivery time
// minus its send time, in ns.
int64_t command_latency(const NetworkParams& params) {
  const topo::Platform p = two_switches();
  CreditNetwork net(p, params);
  net.send(kA, kH, 2 << 20, 0);
  for (int b = 0; b < kBs; ++b) net.send(kB1 + b, kH, 2 << 20, 0);
  std::vector<Delivery> out;
  const int64_t t = static_cast<int64_t>(100 * kChunkNs);
  net.advance(t, out);
  EXPECT_TRUE(out.empty());
  const uint64_t command = net.send(kA, kC, 64, t, 0, Traffic::command);
  for (const Delivery& d : drain(net))
    if (d.message == command) return d.time_ns - t;
  ADD_FAILURE() << "the command was never delivered";
  return -1;
}

TEST(SimnetVirtualLanes, ACommandPassesADataStreamThatFillsTheBuffers) {
  for (const Queueing q : {Queueing::fifo, Queueing::voq}) {
    NetworkParams one;
    one.queueing = q;
    NetworkParams two = one;
    two.virtual_lanes = 2;  // vl_map traffic: commands on VL 0, data on VL 1
    const int64_t alone = command_latency(two), behind = command_latency(one);
    std::printf("# command to C beside a full data lane (%s): %lld ns with 2 VLs, %lld with 1\n",
                topo::queueing_name(q), static_cast<long long>(alone),
                static_cast<long long>(behind));
    // With its own lane it waits at most for a chunk already on a link: 3
    // cables of 100 ns, a few ns of serialisation each.
    EXPECT_LT(alone, static_cast<int64_t>(kChunkNs) + 400) << topo::queueing_name(q);
    // With one lane it waits for credits behind chunks for H at each switch
    // (fifo), or for room in a buffer full of them (voq).
    EXPECT_GT(behind, static_cast<int64_t>(4 * kChunkNs)) << topo::queueing_name(q);
  }
}

// Host a (100 Gbit/s) sends 4 MiB to each of b and c, whose cables run at
// 1 Gbit/s: the switch's input buffer from a fills and stays full. Returns
// the bytes a's uplink carried in the first 100 us (a 32 KiB chunk takes
// 262 us on the slow cables: none has wholly left the buffer by then).
uint64_t uplink_bytes(const NetworkParams& params) {
  topo::Platform p;
  p.name = "slow-outputs";
  const int sw = p.add_switch("sw", 1);
  const int a = p.add_host("a");
  p.connect(a, 1, sw, 1, 100 * kGbit, 100e-9);
  p.connect(p.add_host("b"), 1, sw, 2, 1 * kGbit, 100e-9);
  p.connect(p.add_host("c"), 1, sw, 3, 1 * kGbit, 100e-9);
  topo::fill_shortest_tables(p);
  p.finish();
  CreditNetwork net(p, params);
  net.send(0, 1, 4 << 20, 0);
  net.send(0, 2, 4 << 20, 0);
  std::vector<Delivery> out;
  net.advance(100'000, out);
  return net.link_stats()[p.host(0).uplink].bytes;
}

TEST(SimnetVirtualLanes, EachLaneHasItsOwnBuffersWorthInFlight) {
  for (const Queueing q : {Queueing::fifo, Queueing::voq}) {
    NetworkParams one;
    one.queueing = q;
    NetworkParams two = one;
    two.virtual_lanes = 2;
    two.vl_map = topo::VlMap::destination;  // b (host 1) on VL 1, c (host 2) on VL 0
    EXPECT_EQ(uplink_bytes(one), one.buffer_bytes) << topo::queueing_name(q);
    EXPECT_EQ(uplink_bytes(two), 2 * two.buffer_bytes) << topo::queueing_name(q);
    // With the traffic map both data streams share VL 1: one buffer's worth.
    NetworkParams traffic = two;
    traffic.vl_map = topo::VlMap::traffic;
    EXPECT_EQ(uplink_bytes(traffic), traffic.buffer_bytes) << topo::queueing_name(q);
  }
}

// Round robin among the input ports of one VL is its own: F and G on s1
// send to X (behind a 25 Gbit/s cable on s2) on VL 1 and H sends to Y on
// VL 2 (destination map, 3 VLs), so s1's uplink has VL 2 to serve whenever
// VL 1 has no room at s2. F and G share X's cable evenly. (One pointer over
// every (port, VL) pair, passing over full VLs, gave G, the next VL-1 port
// after H's, 26 of the 32 messages and F 6.)
TEST(SimnetVirtualLanes, PortsOfAVlShareItsCreditsInTurn) {
  topo::Platform p;
  p.name = "two-vls";
  const int s1 = p.add_switch("s1", 1), s2 = p.add_switch("s2", 1);
  const int f = p.add_host("f"), x = p.add_host("x"), y = p.add_host("y");
  const int h = p.add_host("h"), g = p.add_host("g");
  p.connect(f, 1, s1, 1, 100 * kGbit, 100e-9);
  p.connect(h, 1, s1, 2, 100 * kGbit, 100e-9);
  p.connect(g, 1, s1, 3, 100 * kGbit, 100e-9);
  p.connect(x, 1, s2, 2, 25 * kGbit, 100e-9);
  p.connect(y, 1, s2, 3, 100 * kGbit, 100e-9);
  p.connect(s1, 4, s2, 1, 100 * kGbit, 100e-9);
  topo::fill_shortest_tables(p);
  p.finish();
  for (const Queueing q : {Queueing::fifo, Queueing::voq}) {
    NetworkParams params;
    params.queueing = q;
    params.virtual_lanes = 3;
    params.vl_map = topo::VlMap::destination;
    CreditNetwork net(p, params);
    std::map<uint64_t, int> from;
    for (int i = 0; i < 64; ++i) {
      from[net.send(p.find_host("f"), p.find_host("x"), 64 * 1024, 0)] = 0;
      from[net.send(p.find_host("g"), p.find_host("x"), 64 * 1024, 0)] = 1;
      from[net.send(p.find_host("h"), p.find_host("y"), 64 * 1024, 0)] = 2;
    }
    std::vector<Delivery> out;
    net.advance(700'000, out);  // X's cable carries about 33 messages of 64 KiB
    int got[3] = {0, 0, 0};
    for (const Delivery& d : out) ++got[from[d.message]];
    std::printf("# to X in 700 us (%s): %d from F, %d from G; %d from H to Y\n",
                topo::queueing_name(q), got[0], got[1], got[2]);
    EXPECT_GE(got[0] + got[1], 30) << topo::queueing_name(q);
    EXPECT_LE(std::abs(got[0] - got[1]), 2) << topo::queueing_name(q);
  }
}

// One lane whatever the map and the traffic: the same deliveries and link
// figures as the model without lanes, on a random workload in every mode.
TEST(SimnetVirtualLanes, OneLaneIgnoresTheMapAndTheTraffic) {
  const topo::Platform p = two_switches();
  for (const NetworkParams& base : every_mode()) {
    std::vector<std::vector<Delivery>> runs;
    std::vector<std::vector<LinkStats>> links;
    for (int variant = 0; variant < 3; ++variant) {
      NetworkParams params = base;
      if (variant == 2) params.vl_map = topo::VlMap::destination;
      CreditNetwork net(p, params);
      std::mt19937 rng(7);
      int64_t t = 0;
      for (int i = 0; i < 400; ++i) {
        const int src = static_cast<int>(rng() % 6);
        const int dst = (src + 1 + static_cast<int>(rng() % 5)) % 6;
        const uint64_t bytes = rng() % 2 ? 64 : 1 + rng() % (1 << 20);
        const Traffic traffic = variant > 0 && bytes == 64 ? Traffic::command : Traffic::data;
        net.send(src, dst, bytes, t, 0, traffic);
        t += static_cast<int64_t>(rng() % 20'000);
      }
      runs.push_back(drain(net));
      links.push_back(net.link_stats());
    }
    for (int v = 1; v < 3; ++v) {
      ASSERT_EQ(runs[v].size(), runs[0].size());
      for (size_t i = 0; i < runs[0].size(); ++i) {
        EXPECT_EQ(runs[v][i].message, runs[0][i].message);
        EXPECT_EQ(runs[v][i].time_ns, runs[0][i].time_ns);
      }
      for (size_t l = 0; l < links[0].size(); ++l) {
        EXPECT_EQ(links[v][l].bytes, links[0][l].bytes);
        EXPECT_EQ(links[v][l].credit_wait_ns, links[0][l].credit_wait_ns);
      }
    }
  }
}

// Every message is delivered, each connection (commands on lane 0, data on
// lane 1, as the ranks' driver sends them) in send order, with three virtual
// lanes under either map and every mode.
TEST(SimnetVirtualLanes, EveryMessageArrivesInOrderWithSeveralLanes) {
  const topo::Platform p = two_switches();
  for (NetworkParams params : every_mode()) {
    for (const topo::VlMap map : {topo::VlMap::traffic, topo::VlMap::destination}) {
      params.virtual_lanes = 3;
      params.vl_map = map;
      CreditNetwork net(p, params, 2);
      std::mt19937 rng(11);
      std::map<uint64_t, int> connection;  // message -> (src * 6 + dst) * 2 + lane
      for (int i = 0; i < 300; ++i) {
        const int src = static_cast<int>(rng() % 6);
        const int dst = (src + 1 + static_cast<int>(rng() % 5)) % 6;
        const int lane = static_cast<int>(rng() % 3 == 0 ? 0 : 1);
        const uint64_t bytes = lane == 0 ? 64 : 1 + rng() % (1 << 19);
        connection[net.send(src, dst, bytes, i * 1000, lane,
                            lane == 0 ? Traffic::command : Traffic::data)] =
            (src * 6 + dst) * 2 + lane;
      }
      const std::vector<Delivery> out = drain(net);
      EXPECT_EQ(out.size(), 300u);
      EXPECT_EQ(net.in_flight(), 0u);
      std::map<int, uint64_t> last;  // connection -> last id delivered
      for (const Delivery& d : out) {
        uint64_t& prev = last[connection[d.message]];
        EXPECT_GT(d.message, prev);
        prev = d.message;
      }
    }
  }
}

TEST(SimnetVirtualLanes, ABadLaneCountIsRefusedNamingTheKey) {
  const topo::Platform p = star(2);
  for (const int n : {0, 16}) {
    NetworkParams params;
    params.virtual_lanes = n;
    try {
      CreditNetwork net(p, params);
      ADD_FAILURE() << n << " lanes accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("network.virtual_lanes"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace evb::simnet::test
