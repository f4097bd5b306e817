// Test 3: with infinite buffers every switch behaves as an output-queued
// one: no link ever waits for credits, the queueing setting makes no
// difference, and an incast keeps the hot output busy from the first chunk's
// arrival to the last (the finish time of an output queue).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "simnet_util.hpp"

namespace evb::simnet::test {
namespace {

constexpr uint64_t kChunk = 50000;  // 4 us at 100 Gbit/s
constexpr int64_t kChunkNs = 4000;
constexpr int64_t kLatencyNs = 100;
constexpr int kSenders = 8;
constexpr int kChunksEach = 6;

struct Incast {
  std::vector<Delivery> delivered;
  std::vector<LinkStats> links;
};

// Hosts 1..8 each send 6 chunks to host 0 at time 0 (one switch).
Incast incast(const topo::Platform& p, const NetworkParams& params) {
  CreditNetwork net(p, params);
  for (int h = 1; h <= kSenders; ++h)
    for (int m = 0; m < kChunksEach; ++m) net.send(h, 0, kChunk, 0);
  Incast out;
  out.delivered = drain(net);
  out.links = net.link_stats();
  return out;
}

TEST(SimnetOutputQueueing, InfiniteBuffersNeverWaitForCreditsAndIgnoreQueueing) {
  const topo::Platform p = star(kSenders + 1);
  NetworkParams fifo;
  fifo.chunk_bytes = kChunk;
  fifo.buffer_bytes = kChunk;  // one chunk: waits galore when it counts
  fifo.infinite_buffers = true;
  NetworkParams voq = fifo;
  voq.queueing = Queueing::voq;
  const Incast a = incast(p, fifo);
  const Incast b = incast(p, voq);
  ASSERT_EQ(a.delivered.size(), static_cast<size_t>(kSenders * kChunksEach));
  // The hot output is busy from the first head's arrival to the last tail.
  const int64_t output_queued = kLatencyNs + kSenders * kChunksEach * kChunkNs + kLatencyNs;
  EXPECT_EQ(a.delivered.back().time_ns, output_queued);
  for (size_t i = 0; i < a.delivered.size(); ++i) {
    EXPECT_EQ(a.delivered[i].message, b.delivered[i].message);
    EXPECT_EQ(a.delivered[i].time_ns, b.delivered[i].time_ns);
  }
  for (const LinkStats& l : a.links) EXPECT_EQ(l.credit_wait_ns, 0);
  const int down = p.host(0).uplink + 1;  // connect(): the reverse follows
  ASSERT_EQ(p.links[down].to, p.hosts[0]);
  EXPECT_EQ(a.links[down].busy_ns, kSenders * kChunksEach * kChunkNs);
}

TEST(SimnetOutputQueueing, FiniteBuffersFinishAsLateButTheSendersWaitForCredits) {
  const topo::Platform p = star(kSenders + 1);
  NetworkParams params;
  params.chunk_bytes = kChunk;
  params.buffer_bytes = 2 * kChunk;
  const Incast a = incast(p, params);
  const int64_t output_queued = kLatencyNs + kSenders * kChunksEach * kChunkNs + kLatencyNs;
  EXPECT_EQ(a.delivered.back().time_ns, output_queued);
  for (int h = 1; h <= kSenders; ++h)
    EXPECT_GT(a.links[p.host(h).uplink].credit_wait_ns, 0) << "uplink of h" << h;
  EXPECT_EQ(a.links[p.host(0).uplink + 1].credit_wait_ns, 0);  // hosts take without limit
}

// Hosts h1..h3 on leaf0, h0 and h4 on leaf1, one cable between the leaves.
topo::Platform two_leaves() {
  topo::Platform p;
  p.name = "two-leaves";
  std::vector<int> h;
  for (int i = 0; i < 5; ++i) h.push_back(p.add_host("h" + std::to_string(i)));
  const int leaf0 = p.add_switch("leaf0", 1);
  const int leaf1 = p.add_switch("leaf1", 1);
  const double bw = 100 * kGbit, lat = kLatencyNs * 1e-9;
  for (int i = 1; i <= 3; ++i) p.connect(h[i], 1, leaf0, i, bw, lat);
  p.connect(h[0], 1, leaf1, 1, bw, lat);
  p.connect(h[4], 1, leaf1, 2, bw, lat);
  p.connect(leaf0, 4, leaf1, 3, bw, lat);
  topo::fill_shortest_tables(p);
  p.finish();
  return p;
}

TEST(SimnetOutputQueueing, InfiniteBuffersShareAnOutputPerFlowNotPerInput) {
  // Four flows into h0: three arrive over one input of leaf1 (the cable from
  // leaf0), h4's over another. Once the three are queued at leaf1, per-flow
  // round robin gives each flow a quarter of h0's downlink; serving the
  // inputs in turn would give h4 half of it.
  constexpr int kEach = 24;
  const topo::Platform p = two_leaves();
  NetworkParams params;
  params.chunk_bytes = kChunk;
  params.infinite_buffers = true;
  CreditNetwork net(p, params);
  std::vector<int> src_of{-1};
  for (int m = 0; m < kEach; ++m)
    for (int h = 1; h <= 4; ++h) {
      net.send(h, 0, kChunk, 0);
      src_of.push_back(h);
    }
  const auto out = drain(net);
  ASSERT_EQ(out.size(), 4u * kEach);
  // The middle half of the deliveries: a quarter each, give or take one.
  std::vector<int> served(5, 0);
  for (size_t i = out.size() / 4; i < 3 * out.size() / 4; ++i) ++served[src_of[out[i].message]];
  for (int h = 1; h <= 4; ++h) {
    EXPECT_GE(served[h], kEach / 2 - 1) << "h" << h;
    EXPECT_LE(served[h], kEach / 2 + 1) << "h" << h;
  }
  // The downlink never idles once the first chunk is there.
  EXPECT_EQ(out.back().time_ns - out.front().time_ns, (4 * kEach - 1) * kChunkNs);
}

TEST(SimnetOutputQueueing, RoundRobinReachesEveryPortOfAWideSwitch) {
  // 130 ports: the arbiter's port bits span three words.
  constexpr int kHosts = 130;
  const topo::Platform p = star(kHosts);
  NetworkParams params;
  params.chunk_bytes = kChunk;
  params.buffer_bytes = kChunk;
  CreditNetwork net(p, params);
  std::vector<int> src_of{-1};
  for (int round = 0; round < 2; ++round)
    for (int h = 1; h < kHosts; ++h) {
      net.send(h, 0, kChunk, 0);
      src_of.push_back(h);
    }
  const auto out = drain(net);
  ASSERT_EQ(out.size(), 2u * (kHosts - 1));
  // Every sender once before any twice, and the output never idles.
  std::vector<int> served(kHosts, 0);
  for (int i = 0; i < kHosts - 1; ++i) EXPECT_EQ(++served[src_of[out[i].message]], 1);
  EXPECT_EQ(out.back().time_ns, 2 * kLatencyNs + 2 * (kHosts - 1) * kChunkNs);
}

}  // namespace
}  // namespace evb::simnet::test
