// Test 2 and 3: head-of-line blocking on one switch under uniform traffic
// (Karol, Hluchyj, Morgan 1987: FIFO input queues saturate at 2 - sqrt(2) of
// line rate), lifted by virtual output queues and by infinite buffers; and
// infinite buffers behave as output queueing.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <utility>

#include "simnet_util.hpp"

namespace evb::simnet::test {
namespace {

constexpr int kHosts = 32;
constexpr uint64_t kChunk = 64 * 1024;

struct Saturated {
  double per_port = 0;  // delivered, as a fraction of line rate
  int64_t credit_wait_ns = 0;
};

// Every host keeps one chunk-sized message to a uniformly random other host
// waiting at its NIC, so its input buffer always has a head; throughput is
// counted over [warm, warm + window) chunk times.
Saturated saturate(const NetworkParams& params, uint64_t seed, int warm = 1000,
                   int window = 10000) {
  const topo::Platform p = star(kHosts);
  CreditNetwork net(p, params);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> other(1, kHosts - 1);
  const double chunk_s = kChunk * 8 / (100 * kGbit);
  const int64_t t0 = static_cast<int64_t>(warm * chunk_s * 1e9);
  const int64_t t1 = static_cast<int64_t>((warm + window) * chunk_s * 1e9);
  std::vector<Delivery> out;
  uint64_t counted = 0;
  int64_t t = 0;
  while (t < t1) {
    for (int h = 0; h < kHosts; ++h)
      if (net.queued_at_nic(h) == 0) net.send(h, (h + other(rng)) % kHosts, kChunk, t);
    t = net.next_event_ns();
    out.clear();
    net.advance(t, out);
    for (const Delivery& d : out)
      if (d.time_ns >= t0 && d.time_ns < t1) ++counted;
  }
  Saturated s;
  s.per_port =
      line_fraction(static_cast<double>(counted * kChunk), (t1 - t0) * 1e-9, 100 * kGbit) / kHosts;
  for (const LinkStats& l : net.link_stats()) s.credit_wait_ns += l.credit_wait_ns;
  return s;
}

TEST(SimnetHol, FifoInputQueuesSaturateNearTwoMinusRootTwo) {
  // Karol et al. give 0.5858 for N -> infinity and about 0.593 at N = 32; a
  // deeper FIFO changes nothing, since only its head may leave.
  for (const auto& [chunks, seed] : {std::pair{2, 1}, std::pair{2, 2}, std::pair{16, 1}}) {
    NetworkParams fifo;
    fifo.chunk_bytes = kChunk;  // one message, one cell (Karol's model)
    fifo.buffer_bytes = chunks * kChunk;
    const Saturated s = saturate(fifo, seed);
    std::printf(
        "# HOL, %d ports, fifo, buffer %d chunks, seed %d: %.4f of line rate "
        "(2 - sqrt 2 = 0.5858)\n",
        kHosts, chunks, seed, s.per_port);
    EXPECT_GT(s.per_port, 0.55);
    EXPECT_LT(s.per_port, 0.63);
    EXPECT_GT(s.credit_wait_ns, 0);
  }
}

TEST(SimnetHol, VirtualOutputQueuesLiftTheLimit) {
  // A voq chooses among the chunks its input buffer holds: 2 chunks of
  // buffer give about 0.74, 16 over 0.9.
  NetworkParams voq;
  voq.chunk_bytes = kChunk;
  voq.queueing = Queueing::voq;
  voq.buffer_bytes = 2 * kChunk;
  const double shallow = saturate(voq, 1).per_port;
  voq.buffer_bytes = 16 * kChunk;
  const double deep = saturate(voq, 1).per_port;
  std::printf("# HOL, %d ports, voq: %.4f of line rate with 2 chunks of buffer, %.4f with 16\n",
              kHosts, shallow, deep);
  EXPECT_GT(shallow, 0.65);
  EXPECT_GT(deep, 0.9);
}

TEST(SimnetHol, InfiniteBuffersLiftTheLimitWithoutCreditWaits) {
  NetworkParams inf;
  inf.chunk_bytes = kChunk;
  inf.buffer_bytes = 2 * kChunk;
  inf.infinite_buffers = true;
  const Saturated s = saturate(inf, 1);
  std::printf("# HOL, %d ports, infinite buffers: %.4f of line rate\n", kHosts, s.per_port);
  EXPECT_GT(s.per_port, 0.9);
  EXPECT_EQ(s.credit_wait_ns, 0);
}

}  // namespace
}  // namespace evb::simnet::test
