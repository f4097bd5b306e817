// Sizes, durations and numbers as written in configurations and on the command
// line, and their canonical and human-readable spellings.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "core/config_detail.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"

namespace evb {
namespace config_detail {
namespace {

// Exact decimal arithmetic for sizes such as 1.5MiB (GCC/Clang extension).
__extension__ typedef unsigned __int128 u128;

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

struct Unit {
  const char* name;
  uint64_t bytes;
};
constexpr Unit kSizeUnits[] = {
    {"B", 1},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
    {"KB", 1000},
    {"kB", 1000},
    {"MB", 1000000},
    {"GB", 1000000000},
    {"TB", 1000000000000ull},
};
constexpr const char* kSizeUnitList = "B, KiB, MiB, GiB, TiB, KB, MB, GB, TB";

struct TimeUnit {
  const char* name;
  double seconds;
};
constexpr TimeUnit kTimeUnits[] = {{"ns", 1e-9}, {"us", 1e-6},  {"ms", 1e-3},
                                   {"s", 1.0},   {"min", 60.0}, {"h", 3600.0}};
constexpr const char* kTimeUnitList = "ns, us, ms, s, min, h";

// "33 min", "2.8 h", "11.6 days": how long a bare number of seconds really is.
std::string rough_duration(double s) {
  char buf[64];
  if (s < 3600)
    std::snprintf(buf, sizeof buf, "%.0f min", s / 60);
  else if (s < 2 * 86400)
    std::snprintf(buf, sizeof buf, "%.3g h", s / 3600);
  else
    std::snprintf(buf, sizeof buf, "%.3g days", s / 86400);
  return buf;
}

}  // namespace

std::string trim_blanks(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

std::vector<std::pair<std::string, uint64_t>> size_units() {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (const Unit& u : kSizeUnits) out.emplace_back(u.name, u.bytes);
  return out;
}

std::vector<std::pair<std::string, double>> duration_units() {
  std::vector<std::pair<std::string, double>> out;
  for (const TimeUnit& u : kTimeUnits) out.emplace_back(u.name, u.seconds);
  return out;
}

std::optional<uint64_t> try_parse_size(const std::string& input, std::string& reason) {
  const std::string text = trim_blanks(input);
  const std::string expected =
      "expected a size (bytes, or a number with a unit such as 64KiB or 1.5MiB), got '" + text +
      "'";
  if (text.empty()) {
    reason = "expected a size, got an empty value";
    return std::nullopt;
  }
  if (text[0] == '-') {
    reason = "a size must not be negative, got '" + text + "'";
    return std::nullopt;
  }
  size_t i = 0;
  u128 whole = 0;
  int int_digits = 0;
  while (i < text.size() && is_digit(text[i])) {
    whole = whole * 10 + unsigned(text[i] - '0');
    if (++int_digits > 20) {
      reason = "size '" + text + "' is too large";
      return std::nullopt;
    }
    ++i;
  }
  u128 scale = 1;
  int frac_digits = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && is_digit(text[i])) {
      if (frac_digits < 18) {
        whole = whole * 10 + unsigned(text[i] - '0');
        scale *= 10;
      } else if (text[i] != '0') {
        reason = "size '" + text + "' has too many decimals";
        return std::nullopt;
      }
      ++frac_digits;
      ++i;
    }
    if (frac_digits == 0) {
      reason = expected;
      return std::nullopt;
    }
  }
  if (int_digits == 0 && frac_digits == 0) {
    reason = expected;
    return std::nullopt;
  }
  const std::string unit = trim_blanks(text.substr(i));
  uint64_t multiplier = 0;
  if (unit.empty()) multiplier = 1;
  for (const Unit& u : kSizeUnits)
    if (unit == u.name) multiplier = u.bytes;
  if (multiplier == 0) {
    if (unit == "K" || unit == "k" || unit == "M" || unit == "G" || unit == "T")
      reason = "ambiguous size unit '" + unit + "' in '" + text + "': write " +
               (unit == "k" ? std::string("K") : unit) + "iB (binary) or " +
               (unit == "k" ? std::string("K") : unit) + "B (decimal)";
    else
      reason = "unknown size unit '" + unit + "' in '" + text + "' (use " + kSizeUnitList + ")";
    return std::nullopt;
  }
  const u128 total = whole * multiplier;
  if (total % scale != 0) {
    reason = "size '" + text + "' is not a whole number of bytes";
    return std::nullopt;
  }
  const u128 bytes = total / scale;
  if (bytes > std::numeric_limits<uint64_t>::max()) {
    reason = "size '" + text + "' is too large";
    return std::nullopt;
  }
  return static_cast<uint64_t>(bytes);
}

std::optional<double> try_parse_duration(const std::string& input, std::string& reason) {
  const std::string text = trim_blanks(input);
  if (text.empty()) {
    reason = "expected a duration, got an empty value";
    return std::nullopt;
  }
  double number = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || ptr == begin || !std::isfinite(number) ||
      (ptr != end && (*ptr == '.' || is_digit(*ptr)))) {
    reason = "expected a duration (seconds, or a number with a unit such as 250ms or 2min), got '" +
             text + "'";
    return std::nullopt;
  }
  if (number < 0) {
    reason = "a duration must not be negative, got '" + text + "'";
    return std::nullopt;
  }
  const std::string unit = trim_blanks(std::string(ptr, end));
  if (unit.empty() && number >= kBareSecondsLimit) {
    // `duration=2000` meant as milliseconds would run for half an hour.
    reason = "a bare number is seconds (" + rough_duration(number) + "); write " + text + "ms or " +
             text + "s";
    return std::nullopt;
  }
  if (unit.empty()) return number;
  for (const TimeUnit& u : kTimeUnits)
    if (unit == u.name) return number * u.seconds;
  if (unit == "m")
    reason = "ambiguous duration unit 'm' in '" + text + "': write min (minutes) or ms";
  else
    reason = "unknown duration unit '" + unit + "' in '" + text + "' (use " + kTimeUnitList + ")";
  return std::nullopt;
}

std::string duration_scalar(double seconds) {
  return format_real(seconds) + (seconds >= kBareSecondsLimit ? "s" : "");
}

std::optional<int64_t> try_parse_integer(const std::string& input) {
  const std::string text = trim_blanks(input);
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return v;
}

std::optional<double> try_parse_real(const std::string& input) {
  const std::string text = trim_blanks(input);
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<bool> try_parse_boolean(const std::string& input) {
  const std::string t = trim_blanks(input);
  if (t == "true" || t == "True" || t == "TRUE" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "False" || t == "FALSE" || t == "no" || t == "off") return false;
  return std::nullopt;
}

// Never in exponent form: 100000 reads "100000", 1e-9 "0.000000001" (the
// shortest fixed-point text that reads back exactly; 330 characters hold
// any finite double so written).
std::string format_real(double v) {
  if (!std::isfinite(v)) return v != v ? "nan" : (v > 0 ? "inf" : "-inf");
  char buf[400];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  if (ec != std::errc()) return "0";
  return std::string(buf, ptr);
}

std::string format_size(uint64_t bytes) {
  static constexpr std::pair<uint64_t, const char*> units[] = {
      {1ull << 40, "TiB"}, {1ull << 30, "GiB"}, {1ull << 20, "MiB"}, {1ull << 10, "KiB"}};
  for (auto [n, name] : units)
    if (bytes >= n && bytes % n == 0) return std::to_string(bytes / n) + " " + name;
  return std::to_string(bytes) + " B";
}

std::string format_duration(double s) {
  char buf[64];
  auto fmt = [&](double v, const char* unit) {
    if (v >= 1e12) return format_real(std::round(v)) + " " + unit;  // %g would say 1e+12
    std::snprintf(buf, sizeof buf, "%.12g %s", v, unit);
    return std::string(buf);
  };
  if (s == 0) return "0 s";
  if (s >= 3600 && std::fmod(s, 3600) == 0) return fmt(s / 3600, "h");
  if (s >= 60 && std::fmod(s, 60) == 0) return fmt(s / 60, "min");
  if (s >= 1) return fmt(s, "s");
  if (s >= 1e-3) return fmt(s * 1e3, "ms");
  return fmt(s * 1e6, "us");
}

std::string type_name(KeyType type) {
  switch (type) {
    case KeyType::integer:
      return "integer";
    case KeyType::real:
      return "real";
    case KeyType::boolean:
      return "boolean";
    case KeyType::size:
      return "size";
    case KeyType::duration:
      return "duration";
    case KeyType::string:
      return "string";
    case KeyType::choice:
      return "choice";
    case KeyType::real_list:
      return "real list";
    case KeyType::string_map:
      return "map";
    case KeyType::fault_list:
      return "fault list";
    case KeyType::control_list:
      return "control list";
    case KeyType::background_list:
      return "background list";
  }
  return "?";
}

std::string range_text(const KeySpec& spec) {
  auto number = [&](double v) {
    if (spec.type == KeyType::size) return format_size(static_cast<uint64_t>(v));
    if (spec.type == KeyType::duration) return format_duration(v);
    return format_real(v);
  };
  if (spec.type == KeyType::choice) {
    std::string out;
    for (const auto& c : spec.choices) out += (out.empty() ? "" : " | ") + c;
    return out;
  }
  std::string out;
  const bool lo = std::isfinite(spec.min), hi = std::isfinite(spec.max);
  if (lo && hi)
    out = number(spec.min) + " .. " + number(spec.max);
  else if (lo)
    out = ">= " + number(spec.min);
  else if (hi)
    out = "<= " + number(spec.max);
  if (spec.type == KeyType::real_list && !out.empty()) out = "each " + out;
  for (const auto& word : spec.choices) out += (out.empty() ? "" : " or ") + word;
  return out;
}

}  // namespace config_detail

uint64_t parse_size(const std::string& text, const std::string& what) {
  std::string reason;
  auto v = config_detail::try_parse_size(text, reason);
  if (!v) throw ConfigError(what + ": " + reason);
  return *v;
}

bool parse_boolean(const std::string& text, const std::string& what) {
  auto v = config_detail::try_parse_boolean(text);
  if (!v) throw ConfigError(what + ": expected true or false, got '" + text + "'");
  return *v;
}

double parse_duration(const std::string& text, const std::string& what) {
  std::string reason;
  auto v = config_detail::try_parse_duration(text, reason);
  if (!v) throw ConfigError(what + ": " + reason);
  return *v;
}

}  // namespace evb
