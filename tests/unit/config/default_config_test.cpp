// `evbench run` without CONFIG loads the embedded configs/default.yaml with
// the user's --set overrides (load_default_config_text): the default's keys
// are defaults, so a broken rule blames the key the user set and names the
// default's key to set too.
#include "apps/evbench/default_config.hpp"

#include <gtest/gtest.h>

#include "config_error_of.hpp"

namespace evb {
namespace {

using test::real_plugins;
using DefaultConfig = test::WithDefaultDriver;

std::string default_error(const std::string& yaml, const std::vector<std::string>& sets) {
  try {
    load_default_config_text(yaml, "defaults.yaml", sets, real_plugins());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

// `--set duration=100ms` used to read
// "configs/default.yaml:16:1: warmup: warmup (500 ms) must be shorter ...".
TEST_F(DefaultConfig, RuleBlamesTheUsersKey) {
  EXPECT_EQ(default_error("nodes: 4\nduration: 3s\nwarmup: 500ms\n", {"duration=100ms"}),
            "--set duration=100ms: duration: warmup (500 ms) must be shorter than duration "
            "(100 ms); warmup is set by the embedded default (defaults.yaml:3:1): set warmup "
            "too");
  // Both set by the user: nothing to add.
  EXPECT_EQ(default_error("nodes: 4\nwarmup: 500ms\n", {"duration=100ms", "warmup=1s"}),
            "--set warmup=1s: warmup: warmup (1 s) must be shorter than duration (100 ms)");
  // Broken by the default alone: its key, and how to change it.
  EXPECT_EQ(default_error("duration: 100ms\nwarmup: 500ms\n", {}),
            "defaults.yaml:2:1: warmup: warmup (500 ms) must be shorter than duration (100 ms) "
            "(the embedded default's value: change it with --set warmup=...)");
  // A user's own file is the user's: its keys are blamed as before.
  EXPECT_HAS(test::error_of("warmup: 500ms\n", {"duration=100ms"}),
             "run.yaml:1:1: warmup: warmup (500 ms) must be shorter than duration (100 ms)");
  EXPECT_EQ(test::error_of("warmup: 500ms\n", {"duration=100ms"}).find("embedded"),
            std::string::npos);
}

TEST_F(DefaultConfig, TheRealEmbeddedDefault) {
  const std::string e = default_error(default_config_yaml(), {"duration=100ms"});
  EXPECT_HAS(e, "--set duration=100ms: duration: warmup (500 ms) must be shorter than duration");
  EXPECT_HAS(e, "; warmup is set by the embedded default (defaults.yaml:");
  EXPECT_HAS(e, "): set warmup too");
  EXPECT_EQ(default_error(default_config_yaml(), {"duration=100ms", "warmup=10ms"}), "");
}

// The default sets keys only some protocols read (credits): choosing a
// micro-benchmark draws no warning about them; the user's own keys do.
TEST_F(DefaultConfig, DefaultsDrawNoUnreadKeyWarning) {
  const std::string yaml = "nodes: 4\ncredits: 2\n";
  const Config quiet =
      load_default_config_text(yaml, "defaults.yaml", {"protocol=one-to-one"}, real_plugins());
  EXPECT_TRUE(quiet.warnings.empty()) << quiet.warnings.front();
  const Config warned = load_default_config_text(
      yaml, "defaults.yaml", {"protocol=one-to-one", "credits=4"}, real_plugins());
  ASSERT_EQ(warned.warnings.size(), 1u);
  EXPECT_HAS(warned.warnings.front(), "--set credits=4: credits: not read by protocol one-to-one");
}

}  // namespace
}  // namespace evb
