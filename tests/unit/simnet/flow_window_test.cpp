// network.flow_window: a connection may have at most W chunks between its
// NIC and its destination. A flow held at a contended output then leaves
// its NIC's uplink to the sender's other flows (max-min sharing, as the
// fluid model shares), a window that covers the path does not slow a lone
// flow,
// and nothing is lost or stuck in any mode.
#include <gtest/gtest.h>

#include <vector>

#include "simnet_util.hpp"

namespace evb::simnet::test {
namespace {

constexpr uint64_t kChunk = 50000;  // 4 us at 100 Gbit/s
constexpr int64_t kChunkNs = 4000;
constexpr int kEach = 60;  // chunks per flow

// h1, h2 and h3 each send kEach chunks to h0; h1 also sends kEach to h4.
// Returns when h1's last chunk to h4 arrived.
int64_t h1_to_h4_done(uint32_t window) {
  const topo::Platform p = star(5);
  NetworkParams params;
  params.chunk_bytes = kChunk;
  params.infinite_buffers = true;
  params.flow_window = window;
  CreditNetwork net(p, params);
  std::vector<uint64_t> to_h4;
  for (int m = 0; m < kEach; ++m) {
    for (int h = 1; h <= 3; ++h) net.send(h, 0, kChunk, 0);
    to_h4.push_back(net.send(1, 4, kChunk, 0));
  }
  const auto out = drain(net);
  EXPECT_EQ(out.size(), 4u * kEach);
  int64_t done = -1;
  for (const Delivery& d : out)
    for (uint64_t id : to_h4)
      if (d.message == id) done = d.time_ns;
  return done;
}

TEST(SimnetFlowWindow, AFlowHeldAtAContendedOutputLeavesItsUplinkToTheOthers) {
  // h0's downlink is shared three ways, so h1 -> h0 can use a third of h1's
  // uplink. Without a window h1's NIC still gives it half (its chunks queue
  // at h0's output) and h1 -> h4 gets the other half; with one, h1 -> h4
  // gets the two thirds max-min gives it.
  const int64_t unlimited = h1_to_h4_done(0);
  const int64_t windowed = h1_to_h4_done(2);
  const double half = 2.0 * kEach * kChunkNs;        // kEach chunks at half the line
  const double two_thirds = 1.5 * kEach * kChunkNs;  // at two thirds
  EXPECT_GT(unlimited, 0.95 * half);
  EXPECT_LT(windowed, 1.05 * two_thirds);
  EXPECT_LT(windowed, unlimited);
}

// One flow of kEach chunks over three cables; its last delivery.
int64_t lone_flow(NetworkParams params) {
  const topo::Platform p = chain({100 * kGbit, 100 * kGbit, 100 * kGbit});
  params.chunk_bytes = kChunk;
  CreditNetwork net(p, params);
  for (int m = 0; m < kEach; ++m) net.send(0, 1, kChunk, 0);
  const auto out = drain(net);
  EXPECT_EQ(out.size(), static_cast<size_t>(kEach));
  return out.empty() ? -1 : out.back().time_ns;
}

TEST(SimnetFlowWindow, AWindowCoveringThePathKeepsALoneFlowAtLineRate) {
  // Cut-through: a chunk is on the path about one chunk time (latencies are
  // 1/40 of it), so two keep the line busy; store-and-forward holds one
  // chunk per cable (three) and the NIC's next, so four. One less is slower.
  for (NetworkParams base : every_mode()) {
    const uint32_t enough = base.switching == Switching::store_and_forward ? 4 : 2;
    const int64_t free_run = lone_flow(base);
    base.flow_window = enough;
    EXPECT_EQ(lone_flow(base), free_run) << "window " << enough;
    base.flow_window = enough - 1;
    EXPECT_GT(lone_flow(base), free_run) << "window " << enough - 1;
  }
}

TEST(SimnetFlowWindow, EveryMessageArrivesOnceInEveryMode) {
  // An incast and a shift at once, with commands (below one MTU) between
  // the chunks: nothing lost, nothing stuck behind a full window.
  NetworkParams base;
  base.chunk_bytes = kChunk;
  base.buffer_bytes = 2 * kChunk;
  base.flow_window = 1;
  for (const NetworkParams& params : every_mode(base)) {
    const topo::Platform p = star(6);
    CreditNetwork net(p, params);
    std::vector<int> seen;
    for (int m = 0; m < 10; ++m)
      for (int h = 0; h < 6; ++h) {
        if (h != 0) net.send(h, 0, 3 * kChunk, 0);
        net.send(h, (h + 1) % 6, 64, 0);
        net.send(h, (h + 2) % 6, kChunk / 2, 0);
      }
    const auto out = drain(net);
    EXPECT_EQ(out.size(), 10u * (5 + 6 + 6));
    seen.assign(out.size() + 1, 0);
    for (const Delivery& d : out) {
      ASSERT_GE(d.message, 1u);
      ASSERT_LE(d.message, out.size());
      EXPECT_EQ(++seen[d.message], 1) << "message " << d.message;
    }
    EXPECT_EQ(net.in_flight(), 0u);
  }
}

}  // namespace
}  // namespace evb::simnet::test
