#include "drivers/common/option_values.hpp"

#include <cmath>
#include <cstdint>
#include <exception>

#include "core/config_loader.hpp"
#include "core/error.hpp"

namespace evb {

namespace {

std::string where(const std::string& key) {
  return "driver_options." + key;
}

}  // namespace

KeySpec duration_option(const char* name, const char* default_value, const char* doc) {
  return KeySpec{name, KeyType::duration, default_value, "s", 0, INFINITY, {}, doc};
}

std::string option_key(const std::string& raw_key) {
  const size_t dot = raw_key.rfind('.');
  return dot == std::string::npos ? raw_key : raw_key.substr(dot + 1);
}

void bad_option(const std::string& key, const std::string& value, const std::string& what) {
  throw ConfigError(where(key) + ": bad " + what + " '" + value + "'");
}

std::chrono::milliseconds option_ms(const std::string& key, const std::string& value) {
  const double s = parse_duration(value, where(key));
  if (!(s >= 0) || !std::isfinite(s)) bad_option(key, value, "duration");
  return std::chrono::milliseconds(static_cast<int64_t>(std::llround(s * 1000)));
}

size_t option_size(const std::string& key, const std::string& value, size_t max,
                   const std::string& what) {
  const std::string expected = what + " (an integer 0.." + std::to_string(max) + ")";
  size_t pos = 0;
  unsigned long long x = 0;
  try {
    x = std::stoull(value, &pos);
  } catch (const std::exception&) {
    bad_option(key, value, expected);
  }
  if (pos != value.size() || value.front() == '-' || x > max) bad_option(key, value, expected);
  return static_cast<size_t>(x);
}

}  // namespace evb
