#pragma once
// The config tests load configurations against the plug-ins really built
// into evbench (the generated register_builtin_plugins() and
// register_builtin_protocols(), and the same
// plugin_keys() the CLI uses), never a hand-made table: driver names, option
// tables and limits are the real ones. A test that needs a particular driver
// skips when that driver is not built here.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "apps/evbench/cli.hpp"
#include "core/config.hpp"
#include "drivers/api/registry.hpp"

namespace evb::test {

// The protocols built into evbench (the generated register_builtin_protocols()).
inline const ProtocolRegistry& real_protocols() {
  static const ProtocolRegistry protocols = [] {
    ProtocolRegistry r;
    register_builtin_protocols(r);
    return r;
  }();
  return protocols;
}

inline const PluginKeys& real_plugins() {
  static const PluginKeys keys = [] {
    PluginRegistry registry;
    register_builtin_plugins(registry);
    return plugin_keys(registry, real_protocols());
  }();
  return keys;
}

inline bool built(const std::string& driver) {
  const auto& d = real_plugins().drivers;
  return std::find(d.begin(), d.end(), driver) != d.end();
}

// The option `key` of `driver` as that driver declares it (nullptr if none).
inline const KeySpec* driver_option(const std::string& driver, const std::string& key) {
  const auto it = real_plugins().driver_options.find(driver);
  if (it == real_plugins().driver_options.end()) return nullptr;
  for (const KeySpec& k : it->second)
    if (k.path == key) return &k;
  return nullptr;
}

inline std::string joined(const std::vector<std::string>& words, const std::string& sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

// For tests that load configurations relying on the default driver (tcp).
class WithDefaultDriver : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!built(Config{}.driver))
      GTEST_SKIP() << "the default driver " << Config{}.driver << " is not built";
  }
};

}  // namespace evb::test

// Skips the test (with the reason) when `driver` is not built into evbench.
#define EVB_REQUIRE_DRIVER(driver)                                                     \
  do {                                                                                 \
    if (!::evb::test::built(driver)) GTEST_SKIP() << "driver " driver " is not built"; \
  } while (0)
