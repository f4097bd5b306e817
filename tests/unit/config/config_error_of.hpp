#pragma once
// The config tests' common check: the error a configuration gets when loaded
// against the plug-ins really built ("" when it loads), and EXPECT_HAS to
// look for a phrase in it, printing the whole message when it is missing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "real_plugins.hpp"

namespace evb::test {

inline std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {},
                            const PluginKeys& p = real_plugins()) {
  try {
    load_config_text(yaml, "run.yaml", overrides, p);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace evb::test

#define EXPECT_HAS(haystack, needle)                                    \
  do {                                                                  \
    const std::string h_ = (haystack);                                  \
    EXPECT_NE(h_.find(needle), std::string::npos) << "message: " << h_; \
  } while (0)
