#pragma once
// The ucx driver's run-time parameters (driver_options.*): one table of
// KeySpecs for validation and docs, and the parsed values.
#include <chrono>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"

namespace evb::ucx {

struct UcxOptions {
  std::string tls = "auto";      // UCX_TLS value; "auto" = UCX_TLS from the environment or all
  std::string devices = "auto";  // UCX_NET_DEVICES; "auto" = lo when all ranks are local
  std::chrono::milliseconds keepalive_interval{1000};  // 0 = UCX's own default
  std::chrono::milliseconds connect_timeout{30000};
  std::chrono::milliseconds shutdown_timeout{10000};
};

const std::vector<KeySpec>& ucx_option_specs();

// Reads config.driver_options (keys as in ucx_option_specs()); throws
// ConfigError naming the key on a bad value. `config` may be null (defaults).
UcxOptions parse_ucx_options(const Config* config);

}  // namespace evb::ucx
