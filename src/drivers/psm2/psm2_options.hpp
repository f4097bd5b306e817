#pragma once
// The psm2 driver's run-time parameters (driver_options.*).
#include <chrono>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"

namespace evb::psm2 {

struct Psm2Options {
  std::chrono::milliseconds connect_timeout{30000};
  std::chrono::milliseconds shutdown_timeout{10000};
};

const std::vector<KeySpec>& psm2_option_specs();
// Throws ConfigError naming the key on a bad value. `config` may be null.
Psm2Options parse_psm2_options(const Config* config);

}  // namespace evb::psm2
