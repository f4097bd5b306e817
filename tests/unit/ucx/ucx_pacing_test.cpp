// driver_options.tcp_poll_pause: where it applies (tcp alone between the
// ranks, never over shared memory), what it is resolved to, and which rank
// paces (one with a stream of large receives posted and nothing of its own
// in flight), while the messages still arrive whole.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>

#include "../support/driver_test_util.hpp"
#include "drivers/ucx/ucx_driver.hpp"
#include "drivers/ucx/ucx_options.hpp"
#include "drivers/ucx/ucx_probe.hpp"

namespace evb::ucx {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::nanoseconds;

TEST(ucxPacing, TcpAloneMeansOnlyTcpInterfacesBesideSelf) {
  EXPECT_TRUE(tcp_alone({"tcp/lo", "self/memory"}));
  EXPECT_TRUE(tcp_alone({"tcp/eth0", "tcp/lo"}));
  EXPECT_FALSE(tcp_alone({"tcp/lo", "posix/memory", "cma/memory"}));
  EXPECT_FALSE(tcp_alone({"tcp/eth0", "rc_mlx5/mlx5_0:1"}));
  EXPECT_FALSE(tcp_alone({"self/memory"}));
  EXPECT_FALSE(tcp_alone({}));
}

// The value a started driver applies: the key's over tcp with error_handling
// none; 0 wherever shared memory carries the data (sm, or sm beside tcp on
// one host), under error_handling peer, and when off.
// Across hosts (not every rank on this one) the default is off, as it was
// measured over the loopback only; a value set applies there too.
TEST(ucxPacing, AcrossHostsOnlyAValueSetApplies) {
  for (const char* pause : {static_cast<const char*>(nullptr), "1500"}) {
    Config c;
    c.driver_options = {{"tls", "tcp"}, {"devices", "lo"}, {"error_handling", "none"}};
    if (pause) c.driver_options["tcp_poll_pause"] = pause;
    DriverContext ctx = test::context_of(0, 1);
    ctx.config = &c;
    ctx.all_local = false;
    UcxDriver d(ctx, parse_ucx_options(&c));
    EXPECT_EQ(d.poll_pause(), pause ? nanoseconds(1500) : nanoseconds(0))
        << (pause ? pause : "default");
  }
}

TEST(ucxPacing, ResolvedToTheKeyOnlyWhereTcpAloneCarriesTheData) {
  const struct {
    const char* tls;
    const char* pause;  // nullptr: the default
    const char* error_handling;
    nanoseconds expected;
  } cases[] = {
      {"tcp", nullptr, "none", nanoseconds(5000)}, {"tcp", "1500", "none", nanoseconds(1500)},
      {"tcp", "0", "none", nanoseconds(0)},        {"tcp", nullptr, "peer", nanoseconds(0)},
      {"sm", nullptr, "none", nanoseconds(0)},     {"sm", "20000", "none", nanoseconds(0)},
      {"sm,tcp", "20000", "none", nanoseconds(0)},
  };
  for (const auto& k : cases) {
    Config c;
    c.driver_options = {{"tls", k.tls}, {"error_handling", k.error_handling}};
    if (k.pause) c.driver_options["tcp_poll_pause"] = k.pause;
    DriverContext ctx = test::context_of(0, 1);
    ctx.config = &c;
    UcxDriver d(ctx, parse_ucx_options(&c));
    EXPECT_EQ(d.poll_pause(), k.expected)
        << k.tls << " " << (k.pause ? k.pause : "default") << " " << k.error_handling;
    EXPECT_EQ(d.applied_settings(),
              k.expected.count() == 0
                  ? std::string()
                  : "tcp_poll_pause " + std::to_string(k.expected.count()) + " ns");
    if (d.capabilities().shared_memory_path) {
      EXPECT_EQ(d.poll_pause().count(), 0) << k.tls;
    }
  }
}

struct Pair {
  std::vector<std::unique_ptr<UcxDriver>> d;
  explicit Pair(const Config& config) {
    std::vector<std::string> addresses;
    for (int i = 0; i < 2; ++i) {
      DriverContext ctx = test::context_of(i, 2);
      ctx.config = &config;
      d.push_back(std::make_unique<UcxDriver>(ctx, parse_ucx_options(&config)));
      addresses.push_back(d.back()->local_address());
    }
    test::connect_all(d, addresses);
  }
  ~Pair() {
    std::thread t([this] { d[1]->shutdown(); });
    d[0]->shutdown();
    t.join();
  }
};

constexpr size_t kLarge = 64 * 1024;
constexpr int kStream = 16;  // receives posted from which a rank paces

// Rank 1 posts `receives` large receives, both ranks poll a while, then
// rank 0 sends them and both poll until all arrived whole. Returns rank
// 1's paced polls before the sends were posted; rank 0 (which only sends)
// never paces.
size_t paced_while_waiting(Pair& p, int receives) {
  std::vector<std::vector<std::byte>> in(receives, std::vector<std::byte>(kLarge));
  for (int i = 0; i < receives; ++i)
    p.d[1]->post_recv(0, 7, in[i].data(), kLarge, nullptr, 100 + i);
  Completion c[32];
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(p.d[1]->poll(c), 0u);
    EXPECT_EQ(p.d[0]->poll(c), 0u);
  }
  const size_t waiting = p.d[1]->paced_polls();
  const auto data = test::pattern(kLarge, 3);
  for (int i = 0; i < receives; ++i) {
    Segment s{data.data(), kLarge, nullptr};
    p.d[0]->post_send(1, 7, {&s, 1}, 200 + i);
  }
  int sent = 0, received = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(20);
  while ((sent < receives || received < receives) && Clock::now() < deadline) {
    for (size_t n = p.d[0]->poll(c), i = 0; i < n; ++i, ++sent)
      EXPECT_EQ(c[i].status, OpStatus::ok) << p.d[0]->last_error();
    for (size_t n = p.d[1]->poll(c), i = 0; i < n; ++i, ++received) {
      EXPECT_EQ(c[i].status, OpStatus::ok) << p.d[1]->last_error();
      EXPECT_EQ(c[i].bytes, kLarge);
    }
  }
  EXPECT_EQ(sent, receives);
  EXPECT_EQ(received, receives);
  for (const auto& b : in) EXPECT_EQ(std::memcmp(b.data(), data.data(), kLarge), 0);
  EXPECT_EQ(p.d[0]->paced_polls(), 0u) << "the sender paced";
  return waiting;
}

// Two ranks over `tls` without error handling, pausing 1 us where paced.
Config paced_pair_config(const char* tls) {
  Config c;
  c.driver_options = {{"tls", tls},
                      {"error_handling", "none"},
                      {"tcp_poll_pause", "1000"},
                      {"connect_timeout", "10"}};
  return c;
}

TEST(ucxPacing, OnlyAReceiverOfAStreamOfLargeMessagesPacesOverTcp) {
  const Config c = paced_pair_config("tcp");  // outlives the drivers, which keep &c
  Pair p(c);
  ASSERT_EQ(p.d[1]->poll_pause(), nanoseconds(1000));
  EXPECT_EQ(paced_while_waiting(p, kStream - 1), 0u) << "paced with fewer than a stream posted";
  const size_t before = p.d[1]->paced_polls();
  EXPECT_GT(paced_while_waiting(p, kStream), before) << "a stream's receiver did not pace";
}

TEST(ucxPacing, NeverOverSharedMemory) {
  const Config c = paced_pair_config("sm");
  Pair p(c);
  EXPECT_EQ(p.d[1]->poll_pause(), nanoseconds(0));
  EXPECT_EQ(paced_while_waiting(p, kStream), 0u);
  EXPECT_EQ(p.d[1]->paced_polls(), 0u);
}

}  // namespace
}  // namespace evb::ucx
