// The tcp driver end to end: several drivers in one process on 127.0.0.1.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "drivers/tcp/tcp_wire.hpp"
#include "tcp_test_util.hpp"

namespace evb::tcp {
namespace {

using test::Cluster;
using test::pattern;

TEST(TcpDriver, CapabilitiesAndAddress) {
  Cluster c(2);
  Capabilities caps = c[0].capabilities();
  EXPECT_FALSE(caps.rdma_write);
  EXPECT_TRUE(caps.ordered_per_peer);
  EXPECT_TRUE(caps.zero_copy_send);
  EXPECT_TRUE(caps.can_block);
  EXPECT_GE(caps.max_segments, 16u);
  EXPECT_EQ(c.addresses()[0].rfind("127.0.0.1:", 0), 0u) << c.addresses()[0];
  EXPECT_NE(c.addresses()[0], c.addresses()[1]);
}

TEST(TcpDriver, MultiSegmentMessageArrivesIntact) {
  Cluster c(2);
  c.connect();
  auto a = pattern(100, 1), b = pattern(70000, 2), d = pattern(3, 3);
  Segment segs[3] = {{a.data(), a.size()}, {b.data(), b.size()}, {d.data(), d.size()}};
  std::vector<std::byte> buf(80000);
  c[1].post_recv(0, 42, buf.data(), buf.size(), nullptr, 7);
  c[0].post_send(1, 42, segs, 9);
  auto s = c.take(0, 1);
  auto r = c.take(1, 1);
  ASSERT_EQ(s.size(), 1u);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(s[0].type, OpType::send);
  EXPECT_EQ(s[0].cookie, 9u);
  EXPECT_EQ(s[0].status, OpStatus::ok);
  EXPECT_EQ(r[0].type, OpType::recv);
  EXPECT_EQ(r[0].cookie, 7u);
  EXPECT_EQ(r[0].status, OpStatus::ok);
  EXPECT_EQ(r[0].peer, 0);
  EXPECT_EQ(r[0].tag, 42u);
  ASSERT_EQ(r[0].bytes, 70103u);
  EXPECT_EQ(std::memcmp(buf.data(), a.data(), 100), 0);
  EXPECT_EQ(std::memcmp(buf.data() + 100, b.data(), b.size()), 0);
  EXPECT_EQ(std::memcmp(buf.data() + 70100, d.data(), 3), 0);
}

TEST(TcpDriver, ManyMessagesInFlightMatchInOrder) {
  Cluster c(2);
  c.connect();
  constexpr int kCount = 400;
  std::vector<std::vector<std::byte>> out(kCount), in(kCount);
  for (int i = 0; i < kCount; ++i) {
    out[i] = pattern(64 + (i * 977) % 20000, i);
    in[i].resize(20064);
    c[1].post_recv(0, 3, in[i].data(), in[i].size(), nullptr, 1000 + i);
  }
  for (int i = 0; i < kCount; ++i) {
    Segment s{out[i].data(), out[i].size()};
    c[0].post_send(1, 3, {&s, 1}, i);
  }
  auto r = c.take(1, kCount);
  auto s = c.take(0, kCount);
  ASSERT_EQ(r.size(), static_cast<size_t>(kCount));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(s[i].cookie, static_cast<uint64_t>(i));
    ASSERT_EQ(r[i].cookie, static_cast<uint64_t>(1000 + i));
    ASSERT_EQ(r[i].bytes, out[i].size());
    EXPECT_EQ(std::memcmp(in[i].data(), out[i].data(), out[i].size()), 0) << "message " << i;
  }
}

TEST(TcpDriver, AnyPeerReceivesTakeMessagesFromEveryone) {
  Cluster c(3);
  c.connect();
  std::vector<std::byte> b1(16), b2(16);
  c[0].post_recv(kAnyPeer, 5, b1.data(), b1.size(), nullptr, 1);
  c[0].post_recv(kAnyPeer, 5, b2.data(), b2.size(), nullptr, 2);
  uint32_t v1 = 111, v2 = 222;
  Segment s1{&v1, 4}, s2{&v2, 4};
  c[1].post_send(0, 5, {&s1, 1}, 0);
  c[2].post_send(0, 5, {&s2, 1}, 0);
  auto r = c.take(0, 2);
  ASSERT_EQ(r.size(), 2u);
  std::set<PeerId> from = {r[0].peer, r[1].peer};
  EXPECT_EQ(from, (std::set<PeerId>{1, 2}));
  for (const auto& comp : r) {
    uint32_t v;
    std::memcpy(&v, comp.cookie == 1 ? b1.data() : b2.data(), 4);
    EXPECT_EQ(v, comp.peer == 1 ? 111u : 222u);
  }
}

TEST(TcpDriver, UnexpectedMessagesWaitForTheirReceive) {
  Cluster c(2);
  c.connect();
  auto small = pattern(10, 1), large = pattern(1 << 20, 2);
  Segment s1{small.data(), small.size()}, s2{large.data(), large.size()};
  c[0].post_send(1, 5, {&s1, 1}, 1);
  c[0].post_send(1, 7, {&s2, 1}, 2);
  auto s = c.take(0, 2);
  ASSERT_EQ(s.size(), 2u);
  for (int i = 0; i < 200; ++i) c.pump();  // let both land as unexpected
  auto* tcp1 = dynamic_cast<TcpDriver*>(&c[1]);
  ASSERT_NE(tcp1, nullptr);
  EXPECT_EQ(tcp1->unexpected_count(), 2u);
  std::vector<std::byte> big(1 << 20), tiny(10);
  c[1].post_recv(0, 7, big.data(), big.size(), nullptr, 70);  // tag 7 first: matching is by tag
  c[1].post_recv(0, 5, tiny.data(), tiny.size(), nullptr, 50);
  auto r = c.take(1, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].cookie, 70u);
  EXPECT_EQ(r[1].cookie, 50u);
  EXPECT_EQ(big, large);
  EXPECT_EQ(tiny, small);
  EXPECT_EQ(tcp1->unexpected_count(), 0u);
}

// A peer that sends more than the receiver buffers for unposted receives is
// dropped as broken, and the error names it and the limit's keys.
TEST(TcpDriver, UnexpectedMessagesBeyondTheLimitDropThePeer) {
  TcpOptions opts = parse_tcp_options(nullptr);
  opts.unexpected.bytes = 1000;
  Cluster c(2, opts);
  c.connect();
  auto msg = pattern(600, 1);
  Segment s{msg.data(), msg.size()};
  c[0].post_send(1, 5, {&s, 1}, 1);
  c[0].post_send(1, 5, {&s, 1}, 2);
  testing::internal::CaptureStderr();
  auto r = c.take(1, 1);
  std::string log = testing::internal::GetCapturedStderr();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].type, OpType::peer_event);
  EXPECT_EQ(r[0].peer, 0);
  const std::string err = c[1].last_error();
  EXPECT_NE(err.find("peer rank 0 (" + endpoint_of(c.addresses()[0]) + ")"), std::string::npos)
      << err;
  EXPECT_NE(err.find("driver_options.unexpected_bytes"), std::string::npos) << err;
  auto* tcp1 = dynamic_cast<TcpDriver*>(&c[1]);
  ASSERT_NE(tcp1, nullptr);
  EXPECT_EQ(tcp1->unexpected_count(), 1u);  // the first one, still waiting for its receive
}

TEST(TcpDriver, TruncationIsReportedAndTheStreamContinues) {
  Cluster c(2);
  c.connect();
  auto m1 = pattern(100000, 1), m2 = pattern(50, 2);
  std::vector<std::byte> r1(1000), r2(50);
  c[1].post_recv(0, 1, r1.data(), r1.size(), nullptr, 1);
  c[1].post_recv(0, 1, r2.data(), r2.size(), nullptr, 2);
  Segment s1{m1.data(), m1.size()}, s2{m2.data(), m2.size()};
  c[0].post_send(1, 1, {&s1, 1}, 1);
  c[0].post_send(1, 1, {&s2, 1}, 2);
  auto r = c.take(1, 2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].status, OpStatus::truncated);
  EXPECT_EQ(r[0].bytes, 100000u);
  EXPECT_EQ(std::memcmp(r1.data(), m1.data(), 1000), 0);
  EXPECT_EQ(r[1].status, OpStatus::ok);
  EXPECT_EQ(r2, m2);
}

TEST(TcpDriver, TinySocketBuffersAndLargeMessagesBothWays) {
  TcpOptions opts = parse_tcp_options(nullptr);
  opts.socket.sndbuf = 4096;
  opts.socket.rcvbuf = 4096;
  opts.limits.max_io = 65537;  // also cut syscalls at odd sizes
  Cluster c(2, opts);
  c.connect();
  auto a = pattern(3 << 20, 1), b = pattern((3 << 20) + 11, 2);
  std::vector<std::byte> ra(a.size()), rb(b.size());
  c[1].post_recv(0, 1, ra.data(), ra.size(), nullptr, 1);
  c[0].post_recv(1, 1, rb.data(), rb.size(), nullptr, 2);
  Segment sa[2] = {{a.data(), 12345}, {a.data() + 12345, a.size() - 12345}};
  Segment sb{b.data(), b.size()};
  c[0].post_send(1, 1, sa, 1);
  c[1].post_send(0, 1, {&sb, 1}, 2);
  auto r0 = c.take(0, 2);
  auto r1 = c.take(1, 2);
  ASSERT_EQ(r0.size(), 2u);
  ASSERT_EQ(r1.size(), 2u);
  EXPECT_EQ(ra, a);
  EXPECT_EQ(rb, b);
}

TEST(TcpDriver, ZeroLengthMessagesAndWait) {
  Cluster c(2);
  c.connect();
  c[1].post_recv(0, 9, nullptr, 0, nullptr, 1);
  c[0].post_send(1, 9, {}, 2);
  c[0].poll({});  // flushes; returns nothing into an empty span
  c[1].wait(std::chrono::seconds(2));
  auto r = c.take(1, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].bytes, 0u);
  EXPECT_EQ(r[0].status, OpStatus::ok);
}

TEST(TcpDriver, BadPostsCompleteWithError) {
  Cluster c(2);
  c.connect();
  std::vector<Segment> many(TcpDriver::kMaxSegments + 1, Segment{"x", 1});
  c[0].post_send(0, 1, many, 1);  // self
  c[0].post_send(1, 1, many, 2);  // too many segments
  c[0].post_recv(5, 1, nullptr, 0, nullptr, 3);
  auto r = c.take(0, 3);
  ASSERT_EQ(r.size(), 3u);
  for (const auto& comp : r) EXPECT_EQ(comp.status, OpStatus::error);
  EXPECT_NE(c[0].last_error().find("rank 5"), std::string::npos) << c[0].last_error();
}

TEST(TcpDriver, GracefulShutdownIsPeerClosed) {
  Cluster c(2);
  c.connect();
  auto msg = pattern(5000, 1);
  Segment s{msg.data(), msg.size()};
  std::vector<std::byte> buf(5000), late(16);
  c[0].post_recv(1, 1, buf.data(), buf.size(), nullptr, 1);
  c[0].post_recv(1, 2, late.data(), late.size(), nullptr, 2);  // never sent: completes peer_closed
  c[1].post_send(0, 1, {&s, 1}, 1);
  ASSERT_EQ(c.take(1, 1).size(), 1u);
  c[1].shutdown();
  auto r = c.take(0, 3);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].cookie, 1u);
  EXPECT_EQ(r[0].status, OpStatus::ok);
  EXPECT_EQ(buf, msg);
  // The chassis's order (drivers/common/peer_down.hpp): the peer_event, then
  // what waited on the peer.
  EXPECT_EQ(r[1].type, OpType::peer_event);
  EXPECT_EQ(r[1].status, OpStatus::peer_closed);
  EXPECT_EQ(r[1].peer, 1);
  EXPECT_EQ(r[2].cookie, 2u);
  EXPECT_EQ(r[2].status, OpStatus::peer_closed);
  c[0].post_send(1, 1, {&s, 1}, 3);
  auto after = c.take(0, 1);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].status, OpStatus::peer_closed);
  c[0].shutdown();
}

}  // namespace
}  // namespace evb::tcp
