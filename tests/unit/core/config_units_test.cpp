// Sizes and durations as written in configurations and on the command line.
#include <gtest/gtest.h>

#include "core/config_loader.hpp"
#include "core/error.hpp"

namespace evb {
namespace {

std::string size_error(const std::string& text) {
  try {
    parse_size(text, "fragment.size");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string duration_error(const std::string& text) {
  try {
    parse_duration(text, "duration");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ConfigUnits, PlainBytes) {
  EXPECT_EQ(parse_size("0", "x"), 0u);
  EXPECT_EQ(parse_size("4096", "x"), 4096u);
  EXPECT_EQ(parse_size("64B", "x"), 64u);
  EXPECT_EQ(parse_size("18446744073709551615", "x"), 18446744073709551615ull);
}

TEST(ConfigUnits, BinaryUnits) {
  EXPECT_EQ(parse_size("1KiB", "x"), 1024u);
  EXPECT_EQ(parse_size("512KiB", "x"), 512u * 1024);
  EXPECT_EQ(parse_size("64MiB", "x"), 64ull << 20);
  EXPECT_EQ(parse_size("2GiB", "x"), 2ull << 30);
  EXPECT_EQ(parse_size("1TiB", "x"), 1ull << 40);
  EXPECT_EQ(parse_size("1.5MiB", "x"), 3ull << 19);
  EXPECT_EQ(parse_size("4 MiB", "x"), 4ull << 20);
  EXPECT_EQ(parse_size("  8KiB ", "x"), 8192u);
  EXPECT_EQ(parse_size(".5KiB", "x"), 512u);
}

TEST(ConfigUnits, DecimalUnits) {
  EXPECT_EQ(parse_size("1KB", "x"), 1000u);
  EXPECT_EQ(parse_size("1kB", "x"), 1000u);
  EXPECT_EQ(parse_size("1.1KB", "x"), 1100u);
  EXPECT_EQ(parse_size("3MB", "x"), 3000000u);
  EXPECT_EQ(parse_size("2GB", "x"), 2000000000u);
  EXPECT_EQ(parse_size("1TB", "x"), 1000000000000u);
}

TEST(ConfigUnits, SizeGarbageRejectedWithReason) {
  EXPECT_NE(size_error("abc").find("fragment.size: expected a size"), std::string::npos)
      << size_error("abc");
  EXPECT_NE(size_error("").find("empty"), std::string::npos);
  EXPECT_NE(size_error("-5").find("must not be negative"), std::string::npos);
  EXPECT_NE(size_error("4M").find("ambiguous size unit 'M'"), std::string::npos);
  EXPECT_NE(size_error("4M").find("MiB (binary) or MB (decimal)"), std::string::npos);
  EXPECT_NE(size_error("4k").find("KiB (binary) or KB (decimal)"), std::string::npos);
  EXPECT_NE(size_error("4 parsecs").find("unknown size unit 'parsecs'"), std::string::npos);
  EXPECT_NE(size_error("4Mb").find("unknown size unit 'Mb'"), std::string::npos);
  EXPECT_NE(size_error("0.3B").find("not a whole number of bytes"), std::string::npos);
  EXPECT_NE(size_error("1.5").find("not a whole number of bytes"), std::string::npos);
  EXPECT_NE(size_error("1.").find("expected a size"), std::string::npos);
  EXPECT_NE(size_error("20000000TiB").find("too large"), std::string::npos);
  EXPECT_NE(size_error("1e3").find("unknown size unit 'e3'"), std::string::npos);
}

TEST(ConfigUnits, Durations) {
  EXPECT_DOUBLE_EQ(parse_duration("3", "x"), 3.0);
  EXPECT_DOUBLE_EQ(parse_duration("0.5", "x"), 0.5);
  EXPECT_DOUBLE_EQ(parse_duration("3s", "x"), 3.0);
  EXPECT_DOUBLE_EQ(parse_duration("250ms", "x"), 0.25);
  EXPECT_DOUBLE_EQ(parse_duration("250 ms", "x"), 0.25);
  EXPECT_DOUBLE_EQ(parse_duration("10us", "x"), 10e-6);
  EXPECT_DOUBLE_EQ(parse_duration("2min", "x"), 120.0);
  EXPECT_DOUBLE_EQ(parse_duration("1.5h", "x"), 5400.0);
  EXPECT_DOUBLE_EQ(parse_duration("1e-3", "x"), 1e-3);
  EXPECT_DOUBLE_EQ(parse_duration("0", "x"), 0.0);
}

TEST(ConfigUnits, DurationGarbageRejectedWithReason) {
  EXPECT_NE(duration_error("soon").find("duration: expected a duration"), std::string::npos)
      << duration_error("soon");
  EXPECT_NE(duration_error("-1s").find("must not be negative"), std::string::npos);
  EXPECT_NE(duration_error("5m").find("ambiguous duration unit 'm'"), std::string::npos);
  EXPECT_NE(duration_error("5 days").find("unknown duration unit 'days'"), std::string::npos);
  EXPECT_NE(duration_error("inf").find("expected a duration"), std::string::npos);
  EXPECT_NE(duration_error("nan").find("expected a duration"), std::string::npos);
  EXPECT_NE(duration_error("1.2.3s").find("expected a duration"), std::string::npos);
  EXPECT_NE(duration_error("").find("empty"), std::string::npos);
}

// `duration=2000` meant as milliseconds is half an hour as seconds: a bare
// number from 1000 on must say its unit, and the message spells both out.
TEST(ConfigUnits, LargeBareNumberNeedsItsUnit) {
  EXPECT_EQ(duration_error("2000"),
            "duration: a bare number is seconds (33 min); write 2000ms or 2000s");
  EXPECT_EQ(duration_error("1000"),
            "duration: a bare number is seconds (17 min); write 1000ms or 1000s");
  EXPECT_EQ(duration_error("7200"),
            "duration: a bare number is seconds (2 h); write 7200ms or 7200s");
  EXPECT_EQ(duration_error("1e6"),
            "duration: a bare number is seconds (11.6 days); write 1e6ms or 1e6s");
  EXPECT_DOUBLE_EQ(parse_duration("999", "x"), 999.0);
  EXPECT_DOUBLE_EQ(parse_duration("2000ms", "x"), 2.0);
  EXPECT_DOUBLE_EQ(parse_duration("2000s", "x"), 2000.0);
  EXPECT_DOUBLE_EQ(parse_duration("2000 s", "x"), 2000.0);
}

}  // namespace
}  // namespace evb
