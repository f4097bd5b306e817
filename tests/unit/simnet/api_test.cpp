// The CreditNetwork calls themselves: ids, clock, refusals, and the
// accessors the simulated driver leans on.
#include <gtest/gtest.h>

#include <climits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "simnet_util.hpp"

namespace evb::simnet::test {
namespace {

std::string config_error(const topo::Platform& p, const NetworkParams& params) {
  try {
    CreditNetwork net(p, params);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SimnetApi, RefusesParametersThatCannotMoveAChunk) {
  const topo::Platform p = star(4);
  NetworkParams params;
  params.chunk_bytes = 64 * 1024;
  params.buffer_bytes = 32 * 1024;
  EXPECT_NE(config_error(p, params).find("network.buffer"), std::string::npos);
  params.infinite_buffers = true;  // no buffer to fit in
  EXPECT_EQ(config_error(p, params), "(no error)");
  params.chunk_bytes = 0;
  EXPECT_NE(config_error(p, params).find("network.chunk"), std::string::npos);
}

TEST(SimnetApi, SendRefusesWhatIsNotAMessage) {
  const topo::Platform p = star(4);
  CreditNetwork net(p, NetworkParams{});
  EXPECT_THROW(net.send(1, 1, 10, 0), Error);
  EXPECT_THROW(net.send(0, 4, 10, 0), Error);
  EXPECT_THROW(net.send(-1, 2, 10, 0), Error);
  EXPECT_THROW(net.send(0, 2, 0, 0), Error);
  net.send(0, 2, 10, 100);
  EXPECT_THROW(net.send(0, 2, 10, 99), Error);  // before the last send
  std::vector<Delivery> out;
  EXPECT_THROW(net.advance(50, out), Error);
}

TEST(SimnetApi, IdsCountFromOneAndTheClockIsIdleWhenNothingMoves) {
  const topo::Platform p = star(3);
  CreditNetwork net(p, NetworkParams{});
  EXPECT_EQ(net.next_event_ns(), INT64_MAX);
  EXPECT_EQ(net.send(0, 1, 1000, 0), 1u);
  EXPECT_EQ(net.send(0, 2, 1000, 0), 2u);
  EXPECT_EQ(net.send(1, 2, 1000, 0), 3u);
  EXPECT_EQ(net.in_flight(), 3u);
  EXPECT_EQ(net.queued_at_nic(0), 1u);  // the first is on the wire already
  EXPECT_EQ(net.queued_at_nic(2), 0u);
  const auto out = drain(net);
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(net.in_flight(), 0u);
  EXPECT_EQ(net.next_event_ns(), INT64_MAX);
  EXPECT_GT(net.events_processed(), 0u);
  uint64_t bytes = 0;
  for (const LinkStats& l : net.link_stats()) bytes += l.bytes;
  EXPECT_EQ(bytes, 3u * 1000 * 2);  // two links each
}

TEST(SimnetApi, ASendLaterThanPendingEventsRunsThemFirst) {
  const topo::Platform p = star(3);
  CreditNetwork net(p, NetworkParams{});
  net.send(0, 1, 1000, 0);  // arrives at 80 ns + 2 x 100 ns latency
  net.send(2, 1, 1000, 10000);
  EXPECT_LE(net.next_event_ns(), 10000);
  std::vector<Delivery> out;
  net.advance(10000, out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message, 1u);
  EXPECT_EQ(out[0].time_ns, 280);
  const auto rest = drain(net);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].time_ns, 10280);
}

}  // namespace
}  // namespace evb::simnet::test
