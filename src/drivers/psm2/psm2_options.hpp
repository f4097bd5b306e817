#pragma once
// The psm2 driver's run-time parameters (driver_options.*).
#include <chrono>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"
#include "drivers/common/chassis_options.hpp"

namespace evb::psm2 {

// Filled by parse_psm2_options(): the option table (psm2_options.cpp) holds
// every default; a Psm2Options{} does not (parse_psm2_options(nullptr) does).
struct Psm2Options : ChassisOptions {};

const std::vector<KeySpec>& psm2_option_specs();
// The defaults, then config.driver_options; throws ConfigError naming the key
// on a bad value. `config` may be null.
Psm2Options parse_psm2_options(const Config* config);

}  // namespace evb::psm2
