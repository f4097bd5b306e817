// Registration, option parsing and resource hygiene of the tcp driver.
#include <dirent.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.hpp"
#include "drivers/api/plugin_entry.hpp"
#include "drivers/api/registry.hpp"
#include "tcp_test_util.hpp"

namespace evb {
void evb_register_driver_tcp(PluginRegistry& r);
const DriverEntry* evb_driver_entry_tcp();

// The tcp driver as evbench registers it: description, then its entry
// (linked in here; a module in evbench).
void register_tcp_driver(PluginRegistry& r) {
  evb_register_driver_tcp(r);
  bind_driver(r, "tcp", *evb_driver_entry_tcp());
}
}  // namespace evb

namespace evb::tcp {
namespace {

size_t open_fds() {
  size_t n = 0;
  if (DIR* d = ::opendir("/proc/self/fd")) {
    while (::readdir(d)) ++n;
    ::closedir(d);
  }
  return n;
}

TEST(TcpPlugin, RegistersProbesAndCreates) {
  PluginRegistry registry;
  register_tcp_driver(registry);
  const DriverFactory* f = registry.driver("tcp");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->summary.empty());
  std::vector<std::string> keys;
  for (const auto& k : f->options) keys.push_back(k.path);
  for (const char* k : {"bind", "port", "sndbuf", "rcvbuf", "connect_timeout"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  }
  DriverProbe probe = f->probe();
  EXPECT_TRUE(probe.can_run);
  EXPECT_NE(probe.library_version.find("Linux"), std::string::npos) << probe.library_version;
  Config config;
  config.driver_options = {{"bind", "127.0.0.1"}, {"sndbuf", "65536"}};
  DriverContext ctx = test::context_of(0, 1);
  ctx.config = &config;
  auto d = f->create(ctx);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->local_address().rfind("127.0.0.1:", 0), 0u);
}

TEST(TcpPlugin, ParsesCanonicalAndHumanValues) {
  Config config;
  config.driver_options = {{"sndbuf", "65536"},
                           {"rcvbuf", "1.5MiB"},
                           {"connect_timeout", "0.25"},
                           {"shutdown_timeout", "2s"},
                           {"nodelay", "false"},
                           {"port", "0"},
                           {"bind", "auto"}};
  TcpOptions o = parse_tcp_options(&config);
  EXPECT_EQ(o.socket.sndbuf, 65536u);
  EXPECT_EQ(o.socket.rcvbuf, 1572864u);
  EXPECT_EQ(o.connect_timeout.count(), 250);
  EXPECT_EQ(o.shutdown_timeout.count(), 2000);
  EXPECT_FALSE(o.socket.nodelay);
  EXPECT_EQ(o.bind, "auto");
  config.driver_options = {{"sndbuf", "lots"}};
  try {
    parse_tcp_options(&config);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("driver_options.sndbuf"), std::string::npos);
  }
  TcpOptions defaults = parse_tcp_options(nullptr);
  EXPECT_EQ(defaults.connect_timeout.count(), 30000);
  EXPECT_EQ(defaults.port, 0);
}

TEST(TcpPlugin, AFullLifecycleLeavesNoFileDescriptors) {
  size_t before = open_fds();
  {
    test::Cluster c(3);
    c.connect();
    auto m = test::pattern(4096, 1);
    std::vector<std::byte> buf(4096);
    Segment s{m.data(), m.size()};
    c[2].post_recv(0, 1, buf.data(), buf.size(), nullptr, 1);
    c[0].post_send(2, 1, {&s, 1}, 1);
    EXPECT_EQ(c.take(2, 1).size(), 1u);
    EXPECT_EQ(c.take(0, 1).size(), 1u);
    for (int i = 0; i < 3; ++i) c[i].shutdown();
  }
  EXPECT_EQ(open_fds(), before);
}

}  // namespace
}  // namespace evb::tcp
