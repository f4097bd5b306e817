// Every error of single keys in a configuration is reported at once, one per
// line with its position and key, in the order found (file, then --set);
// rules between keys run only when every key read well.
#include <gtest/gtest.h>

#include <sstream>

#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

using AllErrors = test::WithDefaultDriver;

std::vector<std::string> error_lines(const std::string& yaml,
                                     const std::vector<std::string>& overrides = {}) {
  try {
    load_config_text(yaml, "run.yaml", overrides, test::real_plugins());
  } catch (const ConfigError& e) {
    std::vector<std::string> out;
    std::istringstream in(e.what());
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  return {};
}

TEST_F(AllErrors, EveryBadKeyOfTheFileAndTheOverrides) {
  const auto lines = error_lines(
      "credit: 4\n"
      "nodes: 100000\n"
      "fragment:\n"
      "  size: lots\n"
      "duration: 2s\n",
      {"parallel=x", "=3"});
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "run.yaml:1:1: credit: unknown key (did you mean 'credits'?)");
  EXPECT_EQ(lines[1], "run.yaml:2:8: nodes: must be between 1 and 65536, got 100000");
  EXPECT_EQ(lines[2].rfind("run.yaml:4:9: fragment.size: ", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3].rfind("--set parallel=x: parallel: expected an integer", 0), 0u) << lines[3];
  EXPECT_EQ(lines[4].rfind("--set =3: expected KEY=VALUE", 0), 0u) << lines[4];
}

TEST_F(AllErrors, SetTwiceAndUnknownKeysTogether) {
  const auto lines = error_lines("nodes: 4\nnodes: 5\nbogus: 1\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("nodes: set twice (first on line 1)"), std::string::npos);
  EXPECT_NE(lines[1].find("bogus: unknown key"), std::string::npos);
}

// Driver options are not judged against a driver given wrong.
TEST_F(AllErrors, NoDriverOptionErrorsAfterABadDriver) {
  const auto lines = error_lines("driver: nosuch\ndriver_options:\n  whatever: 1\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("driver: 'nosuch' is not one of"), std::string::npos) << lines[0];
}

// The rules between keys run once the keys are valid (and stop at the first).
TEST_F(AllErrors, CrossKeyRulesWaitForValidKeys) {
  EXPECT_EQ(error_lines("nodes: 2\nparallel: 3\ncredits: 0\n").size(), 1u);
  const auto rule = error_lines("protocol: pull\nnodes: 2\nparallel: 3\n");
  ASSERT_EQ(rule.size(), 1u);
  EXPECT_NE(rule[0].find("parallel"), std::string::npos) << rule[0];
}

TEST_F(AllErrors, LargeNumbersArePrintedPlainly) {
  const auto lines = error_lines("", {"nodes=100000"});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("got 100000"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("e+"), std::string::npos) << lines[0];
}

// Emitted YAML writes a boolean driver option as a YAML boolean, and numbers
// never in exponent form.
TEST_F(AllErrors, ResolvedYamlBooleansUnquotedNumbersPlain) {
  const Config c = load_config_text(
      "driver_options: {nodelay: yes}\nru_buffer: 1GiB\nru_rate_factors: [1e-3, 1e2, 1, 1]\n",
      "run.yaml", {}, test::real_plugins());
  const std::string yaml = to_yaml(c);
  EXPECT_NE(yaml.find("  nodelay: true\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("ru_rate_factors: [0.001, 100, 1, 1]"), std::string::npos) << yaml;
  EXPECT_EQ(yaml.find("e+"), std::string::npos) << yaml;
}

}  // namespace
}  // namespace evb
