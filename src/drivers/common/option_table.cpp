// Reading one driver option's text against its KeySpec (option_table.hpp).
// The messages follow the config loader's ("expected an integer, got 'x'",
// "must be between 1 and 255, got 0"), prefixed driver_options.KEY.
#include "drivers/common/option_table.hpp"

#include <charconv>
#include <cstdio>

#include "core/config_loader.hpp"
#include "core/error.hpp"

namespace evb::option_values {

namespace {

std::string where(const KeySpec& spec) {
  return "driver_options." + spec.path;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// Throws unless spec.min <= v <= spec.max; `unit` follows each number.
void in_range(const KeySpec& spec, double v, const std::string& unit) {
  if (v >= spec.min && v <= spec.max) return;
  const std::string got = ", got " + number(v) + unit;
  std::string reason;
  if (std::isfinite(spec.min) && std::isfinite(spec.max))
    reason = "must be between " + number(spec.min) + unit + " and " + number(spec.max) + unit;
  else if (std::isfinite(spec.min))
    reason = "must be at least " + number(spec.min) + unit;
  else
    reason = "must be at most " + number(spec.max) + unit;
  throw ConfigError(where(spec) + ": " + reason + got);
}

}  // namespace

void bad(const KeySpec& spec, const std::string& text, const std::string& what) {
  throw ConfigError(where(spec) + ": bad " + what + " '" + text + "'");
}

std::string key_of(const std::string& raw_key) {
  const size_t dot = raw_key.rfind('.');
  return dot == std::string::npos ? raw_key : raw_key.substr(dot + 1);
}

int64_t integer(const KeySpec& spec, const std::string& text) {
  int64_t x = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, x);
  if (text.empty() || ec != std::errc() || ptr != end)
    throw ConfigError(where(spec) + ": expected an integer, got '" + text + "'");
  in_range(spec, static_cast<double>(x), "");
  return x;
}

uint64_t size(const KeySpec& spec, const std::string& text) {
  const uint64_t bytes = parse_size(text, where(spec));
  in_range(spec, static_cast<double>(bytes), " B");
  return bytes;
}

double seconds(const KeySpec& spec, const std::string& text) {
  const double s = parse_duration(text, where(spec));
  if (!std::isfinite(s))
    throw ConfigError(where(spec) + ": expected a finite duration, got '" + text + "'");
  in_range(spec, s, " s");
  return s;
}

bool boolean(const KeySpec& spec, const std::string& text) {
  return parse_boolean(text, where(spec));
}

size_t choice(const KeySpec& spec, const std::string& text) {
  std::string all;
  for (size_t i = 0; i < spec.choices.size(); ++i) {
    if (spec.choices[i] == text) return i;
    all += (i ? ", " : "") + spec.choices[i];
  }
  throw ConfigError(where(spec) + ": '" + text + "' is not one of " + all);
}

}  // namespace evb::option_values
