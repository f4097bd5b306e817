// Test 5: messages of one connection (src, dst, lane) are delivered in the
// order they were sent, deliveries come out in time order, and the same inputs give the
// same outputs (deliveries, events, link figures).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "shipped_platform.hpp"
#include "simnet_util.hpp"

namespace evb::simnet::test {
namespace {

struct Outcome {
  std::vector<Delivery> delivered;
  std::vector<std::tuple<int, int, int>> pair_of;  // message id -> (src, dst, lane)
  std::vector<int64_t> sent_at;                    // message id -> send time
  uint64_t events = 0;
  std::vector<LinkStats> links;
};

// 3000 messages of 1 B .. 1 MiB between random hosts of the mis-cabled
// 64-host tree on 3 lanes, sent at random times while the network runs.
Outcome random_traffic(const NetworkParams& params, uint64_t seed) {
  const topo::Platform p = shipped("miscabled-64.yaml");
  constexpr int kLanes = 3;
  CreditNetwork net(p, params, kLanes);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> host(0, p.host_count() - 1);
  std::uniform_int_distribution<uint64_t> size(1, 1 << 20);
  std::uniform_int_distribution<int> lane(0, kLanes - 1);
  std::exponential_distribution<double> gap(1.0 / 500);  // ns
  Outcome o;
  o.pair_of.emplace_back(-1, -1, -1);
  o.sent_at.push_back(-1);
  int64_t now = 0;
  for (int i = 0; i < 3000; ++i) {
    now += static_cast<int64_t>(gap(rng));
    // Run what happens before `now`, then send.
    while (net.next_event_ns() < now) net.advance(net.next_event_ns(), o.delivered);
    net.advance(now, o.delivered);
    const int src = host(rng);
    int dst = host(rng);
    if (dst == src) dst = (dst + 1) % p.host_count();
    const int l = lane(rng);
    const uint64_t id = net.send(src, dst, size(rng), now, l);
    EXPECT_EQ(id, o.pair_of.size());
    o.pair_of.emplace_back(src, dst, l);
    o.sent_at.push_back(now);
  }
  const auto rest = drain(net);
  o.delivered.insert(o.delivered.end(), rest.begin(), rest.end());
  o.events = net.events_processed();
  o.links = net.link_stats();
  EXPECT_EQ(net.in_flight(), 0u);
  return o;
}

void expect_ordered(const Outcome& o) {
  ASSERT_EQ(o.delivered.size(), o.pair_of.size() - 1);
  std::vector<bool> seen(o.pair_of.size(), false);
  std::map<std::tuple<int, int, int>, uint64_t> last_of_pair;
  int64_t last_time = 0;
  for (const Delivery& d : o.delivered) {
    ASSERT_LT(d.message, seen.size());
    EXPECT_FALSE(seen[d.message]) << "message " << d.message << " delivered twice";
    seen[d.message] = true;
    EXPECT_GE(d.time_ns, last_time) << "deliveries out of time order";
    last_time = d.time_ns;
    EXPECT_GT(d.time_ns, o.sent_at[d.message]);
    uint64_t& last = last_of_pair[o.pair_of[d.message]];
    const auto [src, dst, lane] = o.pair_of[d.message];
    EXPECT_GT(d.message, last) << "connection " << src << " -> " << dst << " lane " << lane
                               << " out of order";
    last = d.message;
  }
}

TEST(SimnetOrder, EachPairIsDeliveredInSendOrderUnderEveryMode) {
  NetworkParams fifo;
  fifo.chunk_bytes = 16 * 1024;
  fifo.buffer_bytes = 32 * 1024;
  for (const NetworkParams& params : every_mode(fifo)) expect_ordered(random_traffic(params, 7));
}

TEST(SimnetOrder, SameInputsGiveTheSameOutputs) {
  NetworkParams params;
  params.chunk_bytes = 16 * 1024;
  params.buffer_bytes = 32 * 1024;
  const Outcome a = random_traffic(params, 11);
  const Outcome b = random_traffic(params, 11);
  ASSERT_EQ(a.delivered.size(), b.delivered.size());
  for (size_t i = 0; i < a.delivered.size(); ++i) {
    EXPECT_EQ(a.delivered[i].message, b.delivered[i].message) << i;
    EXPECT_EQ(a.delivered[i].time_ns, b.delivered[i].time_ns) << i;
  }
  EXPECT_EQ(a.events, b.events);
  ASSERT_EQ(a.links.size(), b.links.size());
  uint64_t waits = 0;
  for (size_t i = 0; i < a.links.size(); ++i) {
    EXPECT_EQ(a.links[i].bytes, b.links[i].bytes);
    EXPECT_EQ(a.links[i].busy_ns, b.links[i].busy_ns);
    EXPECT_EQ(a.links[i].credit_wait_ns, b.links[i].credit_wait_ns);
    waits += a.links[i].credit_wait_ns;
  }
  EXPECT_GT(waits, 0u);  // the traffic did contend
  const Outcome c = random_traffic(params, 12);
  EXPECT_NE(a.delivered.back().time_ns, c.delivered.back().time_ns);
}

}  // namespace
}  // namespace evb::simnet::test
