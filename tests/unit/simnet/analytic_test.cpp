// Test 1: one message alone on a path of k links arrives at the analytic
// time: latencies plus serialisation, plus one chunk's serialisation per
// switch for store-and-forward.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "simnet_util.hpp"

namespace evb::simnet::test {
namespace {

// 50,000 B at 100 Gbit/s is 4 us exactly, so every figure is whole ns.
constexpr uint64_t kChunk = 50000;
constexpr int64_t kChunkNs = 4000;
constexpr int64_t kLatencyNs = 100;

int64_t deliver_one(const topo::Platform& p, const NetworkParams& params, uint64_t bytes) {
  CreditNetwork net(p, params);
  const uint64_t id = net.send(0, 1, bytes, 1000);
  const auto out = drain(net);
  EXPECT_EQ(out.size(), 1u);
  EXPECT_EQ(out.at(0).message, id);
  EXPECT_EQ(net.in_flight(), 0u);
  return out.at(0).time_ns - 1000;
}

TEST(SimnetAnalytic, OneMessageOverKHopsCutThroughAndStoreAndForward) {
  NetworkParams ct;
  ct.chunk_bytes = kChunk;
  NetworkParams sf = ct;
  sf.switching = Switching::store_and_forward;
  for (int hops = 1; hops <= 5; ++hops) {
    const topo::Platform p = chain(std::vector<double>(hops, 100 * kGbit));
    ASSERT_EQ(p.route(0, 1).size(), static_cast<size_t>(hops));
    for (const int chunks : {1, 4}) {
      const uint64_t bytes = kChunk * chunks;
      const int64_t cut_through = deliver_one(p, ct, bytes);
      const int64_t store = deliver_one(p, sf, bytes);
      EXPECT_EQ(cut_through, chunks * kChunkNs + hops * kLatencyNs) << hops << " hops";
      // Each switch holds a chunk until its tail is in: one chunk time per switch.
      EXPECT_EQ(store - cut_through, (hops - 1) * kChunkNs) << hops << " hops";
      std::printf("# %d links, %d chunks: cut-through %lld ns, store-and-forward %lld ns\n", hops,
                  chunks, static_cast<long long>(cut_through), static_cast<long long>(store));
    }
  }
}

TEST(SimnetAnalytic, ShortLastChunkCutThroughIsSerialisationPlusLatencies) {
  NetworkParams ct;
  ct.chunk_bytes = kChunk;
  const topo::Platform p = chain(std::vector<double>(4, 100 * kGbit));
  // 2.5 chunks: 10 us of serialisation.
  EXPECT_EQ(deliver_one(p, ct, kChunk * 5 / 2), 10000 + 4 * kLatencyNs);
  // One byte: 80 ps, rounded up to the next ns.
  EXPECT_EQ(deliver_one(p, ct, 1), 4 * kLatencyNs + 1);
}

TEST(SimnetAnalytic, CutThroughPaysTheSlowestLinkOnce) {
  NetworkParams ct;
  ct.chunk_bytes = kChunk;
  // 100 -> 25 -> 100 Gbit/s: the chunk cannot leave the second switch faster
  // than it comes in, so its tail arrives one 25 Gbit/s serialisation after
  // the latencies.
  const topo::Platform p = chain({100 * kGbit, 25 * kGbit, 100 * kGbit});
  EXPECT_EQ(deliver_one(p, ct, kChunk), 4 * kChunkNs + 3 * kLatencyNs);
  NetworkParams sf = ct;
  sf.switching = Switching::store_and_forward;
  EXPECT_EQ(deliver_one(p, sf, kChunk), (1 + 4 + 1) * kChunkNs + 3 * kLatencyNs);
}

}  // namespace
}  // namespace evb::simnet::test
