// Peer failure, graceful shutdown, connect errors and wait() (losing a peer
// is not tested on shm: its endpoints in one process share their mappings).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "core/error.hpp"
#include "lf_test_util.hpp"

namespace evb::libfabric {
namespace {

using test::Cluster;
using test::pattern;

class LfFaults : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { LF_REQUIRE_PROVIDER(GetParam()); }
  LfOptions options() const { return test::options_for(GetParam()); }
};

// Finds the completion of `type` in `v`, or null.
const Completion* find(const std::vector<Completion>& v, OpType type) {
  for (const auto& c : v) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

TEST_P(LfFaults, GracefulShutdownClosesReceivesFromThatPeer) {
  Cluster c(3, options());
  c.connect();
  std::vector<std::byte> a(64), b(64), any(64);
  c[0].post_recv(1, 3, a.data(), a.size(), nullptr, 1);  // from the leaving rank
  c[0].post_recv(2, 3, b.data(), b.size(), nullptr, 2);  // from a rank that stays
  c[0].post_recv(kAnyPeer, 3, any.data(), any.size(), nullptr, 3);
  // Rank 1 leaves; its goodbye needs rank 0's progress, so it runs aside.
  c.set_elsewhere(1, true);
  std::thread leaver([&] { c[1].shutdown(); });
  auto got = c.take(0, 2, std::chrono::seconds(10));
  leaver.join();
  c.set_elsewhere(1, false);
  ASSERT_EQ(got.size(), 2u);
  const Completion* ev = find(got, OpType::peer_event);
  const Completion* rv = find(got, OpType::recv);
  ASSERT_NE(ev, nullptr);
  ASSERT_NE(rv, nullptr);
  EXPECT_EQ(ev->peer, 1);
  EXPECT_EQ(ev->status, OpStatus::peer_closed);
  EXPECT_EQ(rv->cookie, 1u);
  EXPECT_EQ(rv->status, OpStatus::peer_closed);
  EXPECT_EQ(rv->peer, 1);
  // The others stay posted and still work.
  EXPECT_EQ(c.settle(0, std::chrono::milliseconds(50)), 0u);
  auto m = pattern(10, 1);
  Segment s{m.data(), m.size(), nullptr};
  c[2].post_send(0, 3, {&s, 1}, 9);
  c[2].post_send(0, 3, {&s, 1}, 10);
  auto rest = c.take(0, 2);
  ASSERT_EQ(rest.size(), 2u);
  for (const auto& r : rest) {
    EXPECT_EQ(r.status, OpStatus::ok);
    EXPECT_EQ(r.peer, 2);
  }
  // Later posts to / from the closed peer fail at once with its status.
  c[0].post_send(1, 3, {&s, 1}, 11);
  c[0].post_recv(1, 3, a.data(), a.size(), nullptr, 12);
  auto late = c.take(0, 2);
  ASSERT_EQ(late.size(), 2u);
  for (const auto& l : late) EXPECT_EQ(l.status, OpStatus::peer_closed) << l.cookie;
  // Once every peer is gone, any-peer receives fail too.
  c[0].post_recv(kAnyPeer, 4, any.data(), any.size(), nullptr, 13);
  c.set_elsewhere(2, true);
  std::thread last([&] { c[2].shutdown(); });
  auto fin = c.take(0, 2, std::chrono::seconds(10));
  last.join();
  c.set_elsewhere(2, false);
  ASSERT_EQ(fin.size(), 2u);
  const Completion* any_done = find(fin, OpType::recv);
  ASSERT_NE(any_done, nullptr);
  EXPECT_EQ(any_done->cookie, 13u);
  EXPECT_EQ(any_done->peer, kAnyPeer);
  EXPECT_EQ(any_done->status, OpStatus::peer_closed);
}

TEST_P(LfFaults, LostPeerFailsSendsAndItsReceives) {
  if (GetParam() == "shm")
    GTEST_SKIP() << "shm endpoints of one process share their mappings: a destroyed peer "
                    "cannot be told from a live one without crashing";
  Cluster c(3, options());
  c.connect();
  // Warm the path 0 -> 1 up, then rank 1 vanishes without a goodbye.
  auto m = pattern(64 * 1024, 2);
  Segment s{m.data(), m.size(), nullptr};
  std::vector<std::byte> from1(64), from2(64), buf(64 * 1024);
  c[1].post_recv(0, 1, buf.data(), buf.size(), nullptr, 1);
  c[0].post_send(1, 1, {&s, 1}, 1);
  ASSERT_EQ(c.take(0, 1).size(), 1u);
  ASSERT_EQ(c.take(1, 1).size(), 1u);
  c[0].post_recv(1, 2, from1.data(), from1.size(), nullptr, 20);
  c[0].post_recv(2, 2, from2.data(), from2.size(), nullptr, 21);
  c.destroy(1);
  // Sends until one fails (the first may still be accepted by the kernel).
  std::vector<Completion> got;
  const auto deadline = test::Clock::now() + std::chrono::seconds(20);
  int posted = 0;
  while (test::Clock::now() < deadline && !find(got, OpType::peer_event)) {
    if (posted < 50) c[0].post_send(1, 1, {&s, 1}, 100 + posted++);
    c.pump();
    while (c.queued(0) > 0) got.push_back(c.take(0, 1)[0]);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const Completion* ev = find(got, OpType::peer_event);
  ASSERT_NE(ev, nullptr) << "no peer_event within 20 s; last error: " << c[0].last_error();
  EXPECT_EQ(ev->peer, 1);
  EXPECT_EQ(ev->status, OpStatus::peer_lost);
  // Drain: every send completes once, the receive from rank 1 is lost, the
  // one from rank 2 stays posted.
  const auto drain = test::Clock::now() + std::chrono::seconds(10);
  size_t sends = 0;
  bool recv1 = false;
  auto count = [&](const Completion& x) {
    if (x.type == OpType::send) {
      ++sends;
      // Accepted before the loss was known, or failed with it.
      EXPECT_TRUE(x.status == OpStatus::ok || x.status == OpStatus::peer_lost)
          << static_cast<int>(x.status);
    }
    if (x.type == OpType::recv) {
      EXPECT_EQ(x.cookie, 20u) << "the receive from rank 2 completed";
      EXPECT_EQ(x.status, OpStatus::peer_lost);
      recv1 = true;
    }
  };
  for (const auto& x : got) count(x);
  while (test::Clock::now() < drain && (sends < static_cast<size_t>(posted) || !recv1)) {
    c.pump();
    while (c.queued(0) > 0) count(c.take(0, 1)[0]);
  }
  EXPECT_EQ(sends, static_cast<size_t>(posted));
  EXPECT_TRUE(recv1);
  const std::string err = c[0].last_error();
  EXPECT_NE(err.find("rank 1"), std::string::npos) << err;
  EXPECT_NE(err.find("libfabric/"), std::string::npos) << err;
  std::cout << "[ lost ] " << GetParam() << ": " << err << "\n";
  // Rank 2 is unaffected.
  auto small = pattern(8, 3);
  Segment s2{small.data(), small.size(), nullptr};
  c[2].post_send(0, 2, {&s2, 1}, 5);
  auto ok = c.take(0, 1);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].cookie, 21u);
  EXPECT_EQ(ok[0].status, OpStatus::ok);
}

TEST_P(LfFaults, KeepaliveKeepsQuietPeersAndLosesSilentOnes) {
  LfOptions o = options();
  o.keepalive_timeout = std::chrono::milliseconds(400);
  Cluster c(3, o);
  c.connect();
  std::vector<std::byte> from1(64), from2(64);
  c[0].post_recv(1, 1, from1.data(), from1.size(), nullptr, 1);
  c[0].post_recv(2, 1, from2.data(), from2.size(), nullptr, 2);
  // Everybody polls but nobody sends: pings and pongs keep the peers.
  EXPECT_EQ(c.settle(0, std::chrono::milliseconds(1500)), 0u)
      << "a quiet but polling peer was given up: " << c[0].last_error();
  // Rank 2 stops polling (a hung process): after the timeout it is lost.
  c.set_elsewhere(2, true);
  const auto t0 = test::Clock::now();
  auto got = c.take(0, 2, std::chrono::seconds(5));
  const auto took = test::Clock::now() - t0;
  ASSERT_EQ(got.size(), 2u);
  const Completion* ev = find(got, OpType::peer_event);
  const Completion* rv = find(got, OpType::recv);
  ASSERT_NE(ev, nullptr);
  ASSERT_NE(rv, nullptr);
  EXPECT_EQ(ev->peer, 2);
  EXPECT_EQ(ev->status, OpStatus::peer_lost);
  EXPECT_EQ(rv->cookie, 2u);
  EXPECT_EQ(rv->status, OpStatus::peer_lost);
  EXPECT_GE(took, std::chrono::milliseconds(300));
  EXPECT_LT(took, std::chrono::seconds(3));
  EXPECT_NE(c[0].last_error().find("rank 2 answered no keepalive"), std::string::npos)
      << c[0].last_error();
  std::cout << "[ keepalive ] " << GetParam() << ": a rank that stopped polling was lost after "
            << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms\n";
  // Rank 1, still polling, is kept.
  EXPECT_EQ(c.settle(0, std::chrono::milliseconds(600)), 0u) << c[0].last_error();
  auto m = pattern(16, 1);
  Segment s{m.data(), m.size(), nullptr};
  c[1].post_send(0, 1, {&s, 1}, 3);
  auto ok = c.take(0, 1);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].cookie, 1u);
  EXPECT_EQ(ok[0].status, OpStatus::ok);
}

// A peer that vanished without a goodbye: tcp;ofi_rxm answers FI_EAGAIN to
// every send for it while it retries the connection, so the driver queues
// them. A send to another peer posted behind them must not wait: one queue
// for all peers kept it (and every keepalive answer) behind the dead peer's.
TEST_P(LfFaults, SendsQueuedForAVanishedPeerDoNotHoldUpOthers) {
  if (GetParam() == "shm")
    GTEST_SKIP() << "shm endpoints of one process share their mappings: a destroyed peer "
                    "cannot be told from a live one without crashing";
  LfOptions o = options();
  o.keepalive_timeout = std::chrono::milliseconds(0);  // nothing declares rank 1 lost
  o.shutdown_timeout = std::chrono::milliseconds(500);
  Cluster c(3, o);
  c.connect();
  c.destroy(1);
  // Let rank 0's provider see the connection go.
  (void)c.settle(0, std::chrono::milliseconds(300));
  auto m = pattern(1024, 5);
  Segment s{m.data(), m.size(), nullptr};
  for (int i = 0; i < 8; ++i) c[0].post_send(1, 1, {&s, 1}, 100 + i);
  (void)c.settle(0, std::chrono::milliseconds(100));
  if (c[0].queued_ops() == 0)
    GTEST_SKIP() << GetParam() << " did not refuse the sends to the vanished rank (they "
                 << "completed or failed: " << c.queued(0)
                 << " completions), so nothing waits in the driver's queue";
  std::vector<std::byte> buf(1024);
  c[2].post_recv(0, 1, buf.data(), buf.size(), nullptr, 7);
  c[0].post_send(2, 1, {&s, 1}, 200);
  auto got = c.take(2, 1, std::chrono::seconds(5));
  ASSERT_EQ(got.size(), 1u) << "the send to rank 2 waited behind those to rank 1";
  EXPECT_EQ(got[0].status, OpStatus::ok);
  EXPECT_EQ(got[0].peer, 0);
  EXPECT_EQ(std::memcmp(buf.data(), m.data(), m.size()), 0);
  EXPECT_GT(c[0].queued_ops(), 0u) << "the sends to rank 1 left the queue meanwhile";
  std::cout << "[ queued ] " << GetParam() << ": " << c[0].queued_ops()
            << " operations for the vanished rank still queued, the live rank served\n";
}

TEST_P(LfFaults, ConnectTimesOutNamingTheMissingRank) {
  LfOptions o = options();
  o.connect_timeout = std::chrono::milliseconds(300);
  Cluster c(2, o);
  const auto t0 = test::Clock::now();
  try {
    c[0].connect(c.addresses(), {1});  // rank 1 never connects
    FAIL() << "connect returned without the peer";
  } catch (const PeerError& e) {
    EXPECT_EQ(e.peer(), 1);
    EXPECT_NE(std::string(e.what()).find("rank(s) 1"), std::string::npos) << e.what();
  }
  EXPECT_LT(test::Clock::now() - t0, std::chrono::seconds(5));
}

TEST_P(LfFaults, WaitSleepsAndWakesForArrivals) {
  Cluster c(2, options());
  c.connect();
  if (!c[1].capabilities().can_block) {
    // Without a wait fd, wait() must not sleep (the caller polls instead).
    const auto t0 = test::Clock::now();
    c[1].wait(std::chrono::milliseconds(200));
    EXPECT_LT(test::Clock::now() - t0, std::chrono::milliseconds(100));
    return;
  }
  // Idle: wait() sleeps (a few returns in 300 ms, where a spin makes
  // hundreds of thousands; the sockets provider naps 1 ms at a time).
  Completion out[4];
  auto t0 = test::Clock::now();
  int returns = 0;
  while (test::Clock::now() - t0 < std::chrono::milliseconds(300)) {
    c[1].wait(std::chrono::milliseconds(100));
    ++returns;
  }
  EXPECT_LT(returns, 1000);
  EXPECT_EQ(c[1].poll(out), 0u);
  // A message from another thread wakes it long before the 5 s timeout. The
  // sender keeps polling (manual progress) until the receiver is done.
  std::vector<std::byte> buf(128);
  c[1].post_recv(0, 1, buf.data(), buf.size(), nullptr, 1);
  auto m = pattern(100, 4);
  std::atomic<bool> done{false};
  std::thread sender([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    Segment s{m.data(), m.size(), nullptr};
    c[0].post_send(1, 1, {&s, 1}, 1);
    Completion mine[1];
    const auto deadline = test::Clock::now() + std::chrono::seconds(10);
    while (!done && test::Clock::now() < deadline) {
      c[0].poll(mine);
      c[0].wait(std::chrono::milliseconds(1));
    }
  });
  t0 = test::Clock::now();
  size_t n = 0;
  int waits = 0;
  const auto deadline = t0 + std::chrono::seconds(10);
  while (n == 0 && test::Clock::now() < deadline) {
    c[1].wait(std::chrono::seconds(5));
    ++waits;
    n = c[1].poll(out);
  }
  const auto woke = test::Clock::now() - t0;
  done = true;
  sender.join();
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(out[0].status, OpStatus::ok);
  EXPECT_EQ(std::memcmp(buf.data(), m.data(), 100), 0);
  EXPECT_LT(woke, std::chrono::seconds(4)) << "wait() did not wake up for the message";
  std::cout << "[ wait ] " << GetParam() << ": " << returns
            << " returns of wait(100ms) in 300 ms idle, " << waits
            << " wait(5s) calls before the message\n";
}

std::string provider_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

INSTANTIATE_TEST_SUITE_P(libfabric, LfFaults, ::testing::Values("tcp", "shm", "sockets", "udp"),
                         provider_name);

}  // namespace
}  // namespace evb::libfabric
