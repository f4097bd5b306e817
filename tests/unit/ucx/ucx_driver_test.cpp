// What the ucx driver adds beyond the conformance contract: its options
// (validation, defaults that keep traffic on loopback), its packed keys
// (garbage refused), the transports it really uses, memory it allocates
// (shared-memory segments a peer writes with a plain copy), and its errors.
#include "drivers/ucx/ucx_driver.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

#include "../support/driver_test_util.hpp"
#include "core/error.hpp"
#include "drivers/ucx/ucx_memory.hpp"
#include "drivers/ucx/ucx_options.hpp"

namespace evb::ucx {
namespace {

using Clock = std::chrono::steady_clock;
using evb::test::context_of;

Config with_options(std::map<std::string, std::string> options) {
  Config c;
  c.driver_options = std::move(options);
  return c;
}

TEST(ucxOptions, DefaultsAndValues) {
  const UcxOptions d = parse_ucx_options(nullptr);
  EXPECT_EQ(d.tls, "auto");
  EXPECT_EQ(d.devices, "auto");
  EXPECT_EQ(d.keepalive_interval, std::chrono::milliseconds(1000));
  EXPECT_EQ(d.error_handling, ErrorHandling::peer);
  EXPECT_EQ(d.tcp_poll_pause_ns, 5000);
  const Config off = with_options({{"tcp_poll_pause", "0"}});
  EXPECT_EQ(parse_ucx_options(&off).tcp_poll_pause_ns, 0);
  const Config none = with_options({{"error_handling", "none"}});
  EXPECT_EQ(parse_ucx_options(&none).error_handling, ErrorHandling::none);
  const Config c = with_options({{"tls", "sm,self"},
                                 {"ucx.devices", "lo"},
                                 {"keepalive_interval", "0.25"},
                                 {"connect_timeout", "5"}});
  const UcxOptions o = parse_ucx_options(&c);
  EXPECT_EQ(o.tls, "sm,self");
  EXPECT_EQ(o.devices, "lo");
  EXPECT_EQ(o.keepalive_interval, std::chrono::milliseconds(250));
  EXPECT_EQ(o.connect_timeout, std::chrono::milliseconds(5000));
}

TEST(ucxOptions, BadValuesNameTheKey) {
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"tls", ""},
                                                        {"tls", "tcp sm"},
                                                        {"devices", "lo;eth0"},
                                                        {"tls", "TLS=tcp"},
                                                        {"error_handling", "off"},
                                                        {"tcp_poll_pause", "-1"},
                                                        {"tcp_poll_pause", "50001"},
                                                        {"tcp_poll_pause", "2us"}}) {
    const Config c = with_options({{key, value}});
    try {
      parse_ucx_options(&c);
      ADD_FAILURE() << key << "=" << value << " accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("driver_options." + key), std::string::npos) << e.what();
    }
  }
}

TEST(ucxKeys, GarbageIsRefusedWithTheReason) {
  KeyRecord r;
  std::vector<std::byte> bytes(kKeyHeader + 10, std::byte{0});
  EXPECT_NE(parse_key(std::span<const std::byte>(bytes.data(), 10), &r).find("too short"),
            std::string::npos);
  EXPECT_NE(parse_key(bytes, &r).find("magic"), std::string::npos);
  const uint32_t magic = kKeyMagic;
  std::memcpy(bytes.data(), &magic, 4);
  const uint32_t wrong_len = 11;
  std::memcpy(bytes.data() + 4, &wrong_len, 4);
  EXPECT_NE(parse_key(bytes, &r).find("does not match"), std::string::npos);
  const uint32_t len = 10;
  std::memcpy(bytes.data() + 4, &len, 4);
  EXPECT_NE(parse_key(bytes, &r).find("no bytes"), std::string::npos);  // size 0
  const uint64_t base = ~0ull - 4;
  const uint64_t size = 100;
  std::memcpy(bytes.data() + 8, &base, 8);
  std::memcpy(bytes.data() + 16, &size, 8);
  EXPECT_NE(parse_key(bytes, &r).find("wraps"), std::string::npos);
  const uint64_t ok_base = 4096;
  std::memcpy(bytes.data() + 8, &ok_base, 8);
  EXPECT_EQ(parse_key(bytes, &r), "");
  EXPECT_EQ(r.base, 4096u);
  EXPECT_EQ(r.size, 100u);
  EXPECT_EQ(r.rkey.size(), 10u);
}

// Two connected drivers in this process.
struct Pair {
  std::vector<std::unique_ptr<UcxDriver>> d;
  explicit Pair(const Config& config) {
    std::vector<std::string> addresses;
    for (int i = 0; i < 2; ++i) {
      DriverContext ctx = context_of(i, 2);
      ctx.config = &config;
      d.push_back(std::make_unique<UcxDriver>(ctx, parse_ucx_options(&config)));
      addresses.push_back(d.back()->local_address());
    }
    evb::test::connect_all(d, addresses);
  }
  ~Pair() {
    std::thread t([this] { d[1]->shutdown(); });
    d[0]->shutdown();
    t.join();
  }
};

TEST(ucxTransports, TcpStaysOnLoopbackAndSmUsesSharedMemory) {
  const Config tcp = with_options({{"tls", "tcp"}, {"connect_timeout", "10"}});
  {
    Pair p(tcp);
    EXPECT_NE(p.d[0]->worker().settings().find("NET_DEVICES=lo"), std::string::npos)
        << p.d[0]->worker().settings();
    const std::string t = p.d[0]->transports_to(1);
    EXPECT_NE(t.find("tcp/lo"), std::string::npos) << t;
    EXPECT_EQ(t.find("eth"), std::string::npos) << "left loopback: " << t;
    EXPECT_EQ(p.d[0]->name(), "ucx/tcp");
  }
  const Config sm = with_options({{"tls", "sm"}, {"connect_timeout", "10"}});
  Pair p(sm);
  const std::string t = p.d[0]->transports_to(1);
  EXPECT_TRUE(t.find("sysv") != std::string::npos || t.find("posix") != std::string::npos) << t;
  EXPECT_EQ(t.find("tcp"), std::string::npos) << t;
}

// UCX 1.13 leaves out of an endpoint with peer failure handling every
// transport that cannot report a dead peer: over sm that is CMA, the
// zero-copy lane ucx_perftest's 512 KiB tagged sends take (rendezvous by
// CMA get); without it they go through the sysv FIFO. error_handling none
// gets the tool's lanes back, and drops the keepalive settings with it.
TEST(ucxTransports, ErrorHandlingNoneKeepsCma) {
  {
    Pair p(with_options({{"tls", "sm"}, {"connect_timeout", "10"}}));
    const std::string t = p.d[0]->transports_to(1);
    EXPECT_EQ(t.find("cma"), std::string::npos) << t;
    EXPECT_NE(p.d[0]->worker().settings().find("MM_ERROR_HANDLING=y"), std::string::npos);
    EXPECT_TRUE(p.d[0]->capabilities().survives_peer_loss);
  }
  Pair p(with_options({{"tls", "sm"}, {"error_handling", "none"}, {"connect_timeout", "10"}}));
  const std::string t = p.d[0]->transports_to(1);
  EXPECT_NE(t.find("cma"), std::string::npos) << t;
  const std::string s = p.d[0]->worker().settings();
  EXPECT_EQ(s.find("ERROR_HANDLING"), std::string::npos) << s;
  EXPECT_EQ(s.find("KEEPALIVE"), std::string::npos) << s;
  // Nothing reports a dead peer now: on_failure exclude must be refused.
  EXPECT_FALSE(p.d[0]->capabilities().survives_peer_loss);
}

// Under tls: auto the variant names what UCX picked (the report's "ucx write"
// said nothing about the transport), and keeps it after shutdown, when the
// report asks.
TEST(ucxTransports, AutoNamesThePickedTransports) {
  const Config autotls = with_options({{"tls", "auto"}, {"connect_timeout", "10"}});
  auto p = std::make_unique<Pair>(autotls);  // shut down by hand below
  EXPECT_EQ(p->d[0]->name(), "ucx");
  const std::string lanes = p->d[0]->transports_to(1);
  const std::string v = p->d[0]->variant();
  ASSERT_EQ(v.rfind("ucx/auto(", 0), 0u) << v << " (lanes " << lanes << ")";
  const std::string first = lanes.substr(0, lanes.find('/'));
  EXPECT_NE(v.find(first), std::string::npos) << v << " lacks " << first << " of " << lanes;
  EXPECT_EQ(v.find('/', 4), std::string::npos) << "devices are left out: " << v;
  std::thread t([&] { p->d[1]->shutdown(); });
  p->d[0]->shutdown();
  t.join();
  EXPECT_EQ(p->d[0]->variant(), v) << "after shutdown";
  const Config sm = with_options({{"tls", "sm"}, {"connect_timeout", "10"}});
  Pair q(sm);
  EXPECT_EQ(q.d[0]->variant(), "ucx/sm");
}

// BU windows come from allocate_memory: on shared memory the peer's put is a
// copy into the segment, done before the target polls at all.
TEST(ucxMemory, AllocatedMemoryTakesPutsWithoutTheTargetsHelp) {
  const Config sm = with_options({{"tls", "sm"}, {"connect_timeout", "10"}});
  Pair p(sm);
  constexpr size_t kSize = 1 << 20;
  RegistrationPtr target = p.d[0]->allocate_memory(kSize, PageSize::normal);
  ASSERT_TRUE(target);
  std::memset(target->base(), 0, kSize);
  RemoteKeyPtr key = p.d[1]->unpack_key(0, target->packed_key());
  const auto data = evb::test::pattern(kSize, 7);
  RegistrationPtr src = p.d[1]->register_memory(const_cast<std::byte*>(data.data()), kSize);
  Segment s{data.data(), kSize, src.get()};
  p.d[1]->rdma_write(0, {&s, 1}, *key, 0, std::nullopt, 42);
  // Only the writer polls: its completion says the bytes are in place.
  Completion c[4];
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  size_t n = 0;
  while (n == 0 && Clock::now() < deadline) n = p.d[1]->poll(c);
  ASSERT_EQ(n, 1u) << p.d[1]->last_error();
  EXPECT_EQ(c[0].cookie, 42u);
  EXPECT_EQ(c[0].status, OpStatus::ok) << p.d[1]->last_error();
  EXPECT_EQ(std::memcmp(target->base(), data.data(), kSize), 0);
  key.reset();
  src.reset();
  target.reset();
}

TEST(ucxErrors, UnusableTransportNamesTheOptions) {
  const Config c = with_options({{"tls", "no_such_transport"}});
  DriverContext ctx = context_of(0, 2);
  ctx.config = &c;
  try {
    UcxDriver d(ctx, parse_ucx_options(&c));
    ADD_FAILURE() << "a driver without transports was created";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("TLS=no_such_transport"), std::string::npos) << what;
    EXPECT_NE(what.find("driver_options.tls"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace evb::ucx
