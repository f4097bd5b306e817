// Test 4: the chunk is a modelling step, not a parameter of the answer: a
// fixed all-to-all gives a per-host rate within 5 % when the chunk is halved,
// on an ideal fat tree and on trees where flows contend (oversubscribed 2:1,
// mis-cabled).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "shipped_platform.hpp"
#include "sim/credit/all_to_all.hpp"
#include "simnet_util.hpp"

namespace evb::simnet::test {
namespace {

double rate(const topo::Platform& p, uint64_t chunk) {
  NetworkParams params;
  params.chunk_bytes = chunk;
  CreditNetwork net(p, params);
  const AllToAllResult r = run_all_to_all(net, p.host_count(), AllToAll{512 * 1024, 1, 16});
  EXPECT_FALSE(r.stuck);
  EXPECT_EQ(r.delivered, static_cast<uint64_t>(p.host_count()) * (p.host_count() - 1));
  return r.per_host_gbps;
}

TEST(SimnetConvergence, HalvingTheChunkMovesThePerHostRateByLessThanFivePercent) {
  for (const std::string file :
       {"fat-tree-64.yaml", "oversubscribed-2to1-64.yaml", "miscabled-64.yaml"}) {
    const topo::Platform p = shipped(file);
    const double at64 = rate(p, 64 * 1024);
    const double at32 = rate(p, 32 * 1024);
    const double change = std::abs(at32 - at64) / at64;
    std::printf("# %s: %.2f Gbit/s per host with 64 KiB chunks, %.2f with 32 KiB (%.2f %%)\n",
                file.c_str(), at64, at32, 100 * change);
    EXPECT_LT(change, 0.05) << file;
    EXPECT_GT(at64, 1.0) << file;
  }
}

}  // namespace
}  // namespace evb::simnet::test
