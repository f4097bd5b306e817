#pragma once
// Parsing of driver_options values, shared by the drivers: the key without
// the prefix a user may have written, durations and bounded integers. Every
// error is a ConfigError naming driver_options.KEY and the bad value.
#include <chrono>
#include <cstddef>
#include <string>

#include "core/config_table.hpp"

namespace evb {

// The table row of a duration option in seconds, >= 0 (timeouts and
// intervals, which every driver with a control protocol has).
KeySpec duration_option(const char* name, const char* default_value, const char* doc);

// "tls", "ucx.tls" and "driver_options.tls" all name the key "tls".
std::string option_key(const std::string& raw_key);

// Throws ConfigError "driver_options.KEY: bad WHAT 'VALUE'".
[[noreturn]] void bad_option(const std::string& key, const std::string& value,
                             const std::string& what);

// A duration (as the config loader normalises them: seconds, or with a unit).
std::chrono::milliseconds option_ms(const std::string& key, const std::string& value);

// An integer in [0, max].
size_t option_size(const std::string& key, const std::string& value, size_t max,
                   const std::string& what);

}  // namespace evb
