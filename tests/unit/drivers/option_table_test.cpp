// The driver option table (drivers/common/option_table.hpp): one row per
// option gives both its KeySpec and the field it fills, defaults included.
#include "drivers/common/option_table.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "drivers/common/chassis_options.hpp"

namespace evb {
namespace {

enum class Mode { slow, fast };

// Every kind of field a row can fill: members of several types, a nested
// member, an accessor and a setter.
struct Inner {
  size_t bytes = 0;
};
struct Toy {
  std::string name;
  int count = 0;
  uint8_t small = 0;
  Inner inner;
  size_t scaled = 0;
  std::chrono::milliseconds timeout{};
  double seconds = 0;
  Mode mode = Mode::slow;
};

using T = OptionTable<Toy>;

const T& table() {
  static const T rows = {
      T::text("name", &Toy::name, "auto", "a name",
              [](const std::string& v) -> const char* {
                return v.find(' ') != std::string::npos ? "name" : nullptr;
              }),
      T::integer(
          "count", [](Toy& o) -> int& { return o.count; }, "-1", "things", -1, 100, "a count"),
      T::integer("small", &Toy::small, "7", "", 0, 7, "a small count"),
      T::size("bytes", T::nested(&Toy::inner, &Inner::bytes), "1KiB", 0, 1048576, "a size"),
      T::boolean(
          "flag", [](Toy& o, bool on) { o.scaled = on ? 42 : 0; }, "true", "a flag"),
      T::duration("timeout", &Toy::timeout, "250ms", "a timeout"),
      T::duration("seconds", &Toy::seconds, "2s", "a duration kept in seconds"),
      T::choice(
          "mode", &Toy::mode, "fast",
          std::vector<std::pair<const char*, Mode>>{{"slow", Mode::slow}, {"fast", Mode::fast}},
          "a mode"),
  };
  return rows;
}

Config with(std::map<std::string, std::string> options) {
  Config c;
  c.driver_options = std::move(options);
  return c;
}

std::string error_of(const std::string& key, const std::string& value) {
  const Config c = with({{key, value}});
  try {
    table().parse(&c);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(OptionTable, DefaultsComeFromTheRows) {
  const Toy o = table().parse(nullptr);
  EXPECT_EQ(o.name, "auto");
  EXPECT_EQ(o.count, -1);
  EXPECT_EQ(o.small, 7);
  EXPECT_EQ(o.inner.bytes, 1024u);
  EXPECT_EQ(o.scaled, 42u);
  EXPECT_EQ(o.timeout.count(), 250);
  EXPECT_DOUBLE_EQ(o.seconds, 2.0);
  EXPECT_EQ(o.mode, Mode::fast);
  const Config none;
  EXPECT_EQ(table().parse(&none).inner.bytes, 1024u);
}

TEST(OptionTable, SpecsAreTheRowsInOrder) {
  const auto& specs = table().specs();
  ASSERT_EQ(specs.size(), 8u);
  EXPECT_EQ(specs[0].path, "name");
  EXPECT_EQ(specs[0].type, KeyType::string);
  EXPECT_EQ(specs[0].default_value, "auto");
  EXPECT_EQ(specs[1].type, KeyType::integer);
  EXPECT_EQ(specs[1].unit, "things");
  EXPECT_EQ(specs[1].min, -1);
  EXPECT_EQ(specs[1].max, 100);
  EXPECT_EQ(specs[1].doc, "a count");
  EXPECT_EQ(specs[3].type, KeyType::size);
  EXPECT_EQ(specs[3].unit, "B");
  EXPECT_EQ(specs[4].type, KeyType::boolean);
  EXPECT_EQ(specs[5].type, KeyType::duration);
  EXPECT_EQ(specs[5].unit, "s");
  EXPECT_EQ(specs[5].min, 0);
  EXPECT_EQ(specs[7].type, KeyType::choice);
  EXPECT_EQ(specs[7].choices, (std::vector<std::string>{"slow", "fast"}));
}

TEST(OptionTable, ConfigValuesFillTheirFieldsWhateverTheKeysPrefix) {
  const Config c = with({{"name", ""},
                         {"toy.count", "5"},
                         {"driver_options.bytes", "2KiB"},
                         {"flag", "false"},
                         {"timeout", "1.5"},
                         {"seconds", "250ms"},
                         {"mode", "slow"},
                         {"someone_elses", "ignored"}});
  const Toy o = table().parse(&c);
  EXPECT_EQ(o.name, "auto");  // empty: the default
  EXPECT_EQ(o.count, 5);
  EXPECT_EQ(o.small, 7);  // not given
  EXPECT_EQ(o.inner.bytes, 2048u);
  EXPECT_EQ(o.scaled, 0u);
  EXPECT_EQ(o.timeout.count(), 1500);
  EXPECT_DOUBLE_EQ(o.seconds, 0.25);
  EXPECT_EQ(o.mode, Mode::slow);
}

TEST(OptionTable, BadValuesNameTheKeyAndTheValue) {
  EXPECT_EQ(error_of("count", "x"), "driver_options.count: expected an integer, got 'x'");
  EXPECT_EQ(error_of("count", "101"), "driver_options.count: must be between -1 and 100, got 101");
  EXPECT_EQ(error_of("count", "2.5"), "driver_options.count: expected an integer, got '2.5'");
  EXPECT_EQ(error_of("small", "8"), "driver_options.small: must be between 0 and 7, got 8");
  EXPECT_EQ(error_of("name", "a b"), "driver_options.name: bad name 'a b'");
  EXPECT_EQ(error_of("mode", "medium"), "driver_options.mode: 'medium' is not one of slow, fast");
  EXPECT_EQ(error_of("flag", "maybe"), "driver_options.flag: expected true or false, got 'maybe'");
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"bytes", "lots"}, {"bytes", "2MiB"}, {"timeout", "soon"}, {"timeout", "-1s"}}) {
    const std::string e = error_of(key, value);
    EXPECT_EQ(e.rfind("driver_options." + key + ": ", 0), 0u) << key << "=" << value << ": " << e;
  }
  EXPECT_NE(error_of("bytes", "2MiB").find("must be between 0 B and 1048576 B, got 2097152 B"),
            std::string::npos);
}

// A driver's options with the chassis's two embedded after its own.
struct ToyDriverOptions : ChassisOptions {
  bool fast = false;
};

TEST(ChassisOptions, EmbeddedOnceWithTheDriversOwnSentence) {
  using D = OptionTable<ToyDriverOptions>;
  const D table({D::boolean("fast", &ToyDriverOptions::fast, "false", "go fast")},
                chassis_rows<ToyDriverOptions>({"waits for the toy's peers", "drains the toy"}));
  ASSERT_EQ(table.specs().size(), 3u);
  EXPECT_EQ(table.specs()[0].path, "fast");  // the driver's own rows first
  EXPECT_EQ(table.specs()[1].path, "connect_timeout");
  EXPECT_EQ(table.specs()[1].default_value, "30s");
  EXPECT_EQ(table.specs()[1].doc, "waits for the toy's peers");
  EXPECT_EQ(table.specs()[2].path, "shutdown_timeout");
  EXPECT_EQ(table.specs()[2].default_value, "10s");
  const ToyDriverOptions defaults = table.parse(nullptr);
  EXPECT_EQ(defaults.connect_timeout.count(), 30000);
  EXPECT_EQ(defaults.shutdown_timeout.count(), 10000);
  Config cfg;
  cfg.driver_options = {{"connect_timeout", "2s"}, {"shutdown_timeout", "250ms"}, {"fast", "true"}};
  const ToyDriverOptions set = table.parse(&cfg);
  EXPECT_EQ(set.connect_timeout.count(), 2000);
  EXPECT_EQ(set.shutdown_timeout.count(), 250);
  EXPECT_TRUE(set.fast);

  // A driver whose library connects on its own has no connect_timeout.
  const D no_connect({}, chassis_rows<ToyDriverOptions>({nullptr, "drains"}));
  ASSERT_EQ(no_connect.specs().size(), 1u);
  EXPECT_EQ(no_connect.specs()[0].path, "shutdown_timeout");
}

}  // namespace
}  // namespace evb
