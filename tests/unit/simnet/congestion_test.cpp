// Test 6: congestion spreading. Hosts B1..B4 saturate the hot host H (an
// incast; H's downlink is oversubscribed 4:1 at least). Host A sends a light
// stream to H too (a tenth of its line) and, saturating, to the cold host C,
// which nobody else uses. With FIFO input buffers A's chunks for H wait at
// the head of A's buffer for their turn on H's downlink, and A's chunks for C
// wait behind them: the incast slows a flow that never goes near H. Virtual
// output queues or infinite buffers let A -> C pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "simnet_util.hpp"

namespace evb::simnet::test {
namespace {

constexpr uint64_t kChunk = 64 * 1024;
constexpr int kHot = 0, kCold = 1, kA = 2, kFirstB = 3, kBs = 4;
const double kChunkNs = kChunk * 8 / (100 * kGbit) * 1e9;

struct Spread {
  double victim = 0;  // A -> C delivered, fraction of line rate
  std::vector<LinkStats> links;
};

Spread run(const topo::Platform& p, const NetworkParams& params, bool incast) {
  CreditNetwork net(p, params);
  // Saturating flows: A -> C and, with the incast, each B -> H; 4 messages
  // of 4 chunks undelivered each.
  struct Flow {
    int src, dst, outstanding = 0;
  };
  std::vector<Flow> flows{{kA, kCold}};
  if (incast)
    for (int b = 0; b < kBs; ++b) flows.push_back({kFirstB + b, kHot});
  std::vector<int> flow_of{-1};  // message id -> flow (-1: A's light stream)
  const int64_t period = static_cast<int64_t>(10 * kChunkNs);
  const int64_t t0 = static_cast<int64_t>(500 * kChunkNs), t1 = 5 * t0;
  int64_t next_light = 0, t = 0;
  uint64_t victim_bytes = 0;
  std::vector<Delivery> out;
  while (t < t1) {
    if (t >= next_light) {
      net.send(kA, kHot, kChunk, t);
      flow_of.push_back(-1);
      next_light += period;
    }
    for (size_t f = 0; f < flows.size(); ++f)
      for (; flows[f].outstanding < 4; ++flows[f].outstanding) {
        net.send(flows[f].src, flows[f].dst, 4 * kChunk, t);
        flow_of.push_back(static_cast<int>(f));
      }
    t = std::min(net.next_event_ns(), next_light);
    out.clear();
    net.advance(t, out);
    for (const Delivery& d : out) {
      const int f = flow_of[d.message];
      if (f < 0) continue;
      --flows[f].outstanding;
      if (f == 0 && d.time_ns >= t0 && d.time_ns < t1) victim_bytes += 4 * kChunk;
    }
  }
  Spread s;
  s.victim = line_fraction(static_cast<double>(victim_bytes), (t1 - t0) * 1e-9, 100 * kGbit);
  s.links = net.link_stats();
  return s;
}

TEST(SimnetCongestion, AnIncastSlowsAFlowBehindAFifoNotWithVoqOrInfiniteBuffers) {
  const topo::Platform p = star(kFirstB + kBs);
  const auto uplink = [&](int h) { return p.host(h).uplink; };
  const auto downlink = [&](int h) { return p.links[p.host(h).uplink].reverse; };
  NetworkParams fifo;  // 256 KiB: 4 chunks per input port
  fifo.chunk_bytes = kChunk;
  NetworkParams voq = fifo;
  voq.queueing = Queueing::voq;
  NetworkParams inf = fifo;
  inf.infinite_buffers = true;

  const double alone = run(p, fifo, false).victim;
  const Spread f = run(p, fifo, true);
  const Spread v = run(p, voq, true);
  const Spread i = run(p, inf, true);
  std::printf(
      "# A -> C, fraction of line rate: alone %.3f; beside the incast: fifo %.3f, "
      "voq %.3f, infinite buffers %.3f\n",
      alone, f.victim, v.victim, i.victim);
  EXPECT_GT(alone, 0.85);
  EXPECT_LT(f.victim, 0.75 * alone);
  EXPECT_GT(v.victim, 0.95 * alone);
  EXPECT_GT(i.victim, 0.95 * alone);

  // Where the waits are: the incast's uplinks and, with FIFO, A's uplink
  // wait for room at the switch; downlinks never do (hosts take all).
  for (int b = kFirstB; b < kFirstB + kBs; ++b) {
    EXPECT_GT(f.links[uplink(b)].credit_wait_ns, 0);
    EXPECT_GT(v.links[uplink(b)].credit_wait_ns, 0);
  }
  EXPECT_GT(f.links[uplink(kA)].credit_wait_ns, 0);
  EXPECT_LT(v.links[uplink(kA)].credit_wait_ns, f.links[uplink(kA)].credit_wait_ns / 10);
  for (const int h : {kHot, kCold}) {
    EXPECT_EQ(f.links[downlink(h)].credit_wait_ns, 0);
    EXPECT_EQ(v.links[downlink(h)].credit_wait_ns, 0);
  }
  for (const LinkStats& l : i.links) EXPECT_EQ(l.credit_wait_ns, 0);
  std::printf("# credit waits on A's uplink: fifo %lld ns, voq %lld ns; on B1's: fifo %lld ns\n",
              static_cast<long long>(f.links[uplink(kA)].credit_wait_ns),
              static_cast<long long>(v.links[uplink(kA)].credit_wait_ns),
              static_cast<long long>(f.links[uplink(kFirstB)].credit_wait_ns));
}

}  // namespace
}  // namespace evb::simnet::test
