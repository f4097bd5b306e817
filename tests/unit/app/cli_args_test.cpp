// The command line's traps (src/apps/evbench/cli_args.cpp): each mistake gets
// a message that says what to write instead.
#include "apps/evbench/cli_args.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "apps/evbench/smpi_args.hpp"
#include "core/error.hpp"

namespace evb {
namespace {

std::string usage_error(const std::vector<std::string>& args, const std::string& command = "run") {
  try {
    parse_args(args, command);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string command_error(const std::string& command) {
  try {
    check_command(command);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

// `evbench my.yaml`: the file is there, the command was forgotten.
TEST(CliArgs, AConfigurationWhereTheCommandGoesNamesRun) {
  EXPECT_EQ(command_error("my.yaml"),
            "'my.yaml' is a configuration, not a command: evbench run my.yaml (or validate, sim)");
  EXPECT_EQ(command_error("configs/x.yml"),
            "'configs/x.yml' is a configuration, not a command: evbench run configs/x.yml (or "
            "validate, sim)");
  EXPECT_EQ(command_error(".yaml"), "unknown command '.yaml' (see evbench --help)");
}

TEST(CliArgs, SetReadsKeyValueInBothForms) {
  const Args a = parse_args({"--set", "credits=4", "--set=nodes=2", "my.yaml"}, "run");
  EXPECT_EQ(a.sets, (std::vector<std::string>{"credits=4", "nodes=2"}));
  EXPECT_EQ(a.config, "my.yaml");
}

// `--set credits 4` used to take 4 for CONFIG ("4: cannot read the configuration").
TEST(CliArgs, SetWithoutEqualsSaysTheJoinedForm) {
  EXPECT_EQ(usage_error({"--set", "credits", "4"}),
            "run: --set takes KEY=VALUE: use --set credits=4");
  EXPECT_EQ(usage_error({"--set=credits", "4"}), "run: --set takes KEY=VALUE: use --set credits=4");
  EXPECT_EQ(usage_error({"--set", "credits"}),
            "run: --set takes KEY=VALUE: use --set credits=VALUE");
  EXPECT_EQ(usage_error({"--set", "credits", "--quiet"}),
            "run: --set takes KEY=VALUE: use --set credits=VALUE");
  EXPECT_EQ(usage_error({"--set"}), "run: --set needs KEY=VALUE");
}

TEST(CliArgs, ConfigKeyAsOptionPointsAtSet) {
  EXPECT_EQ(usage_error({"--duration=1s"}, "validate"),
            "validate: unknown option --duration: configuration keys go through --set "
            "duration=1s");
  EXPECT_EQ(usage_error({"--nodes", "4"}),
            "run: unknown option --nodes: configuration keys go through --set nodes=4");
  EXPECT_EQ(usage_error({"--peer-timeout", "5s"}),
            "run: unknown option --peer-timeout: configuration keys go through --set "
            "peer_timeout=5s");
  EXPECT_EQ(usage_error({"--fragment.size=1MiB"}),
            "run: unknown option --fragment.size: configuration keys go through --set "
            "fragment.size=1MiB");
  EXPECT_EQ(usage_error({"--driver_options.provider=shm"}),
            "run: unknown option --driver_options.provider: configuration keys go through "
            "--set driver_options.provider=shm");
  EXPECT_EQ(usage_error({"--credits"}),
            "run: unknown option --credits: configuration keys go through --set credits=VALUE");
}

TEST(CliArgs, OtherUnknownOptionsStayPlain) {
  EXPECT_EQ(usage_error({"--bogus"}), "run: unknown option '--bogus' (see evbench --help)");
  EXPECT_EQ(usage_error({"--"}), "run: unknown option '--' (see evbench --help)");
  EXPECT_EQ(usage_error({"-"}), "run: unknown option '-' (see evbench --help)");
  EXPECT_EQ(usage_error({"--=4"}), "run: unknown option '--=4' (see evbench --help)");
  // sim's own options are not config keys for run.
  EXPECT_EQ(usage_error({"--platform", "p.yaml"}),
            "run: unknown option '--platform' (see evbench --help)");
}

TEST(CliArgs, ModelSuggestsNearest) {
  try {
    parse_args({"--model", "Credit"}, "sim");
    FAIL() << "--model Credit accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--model Credit: the models are fluid and credit (did you mean 'credit'?)");
  }
}

// smpirun splits the program's arguments on whitespace and globs them: the
// platform name `evbench sim` hands evbench-smpi survives both, escaped.
TEST(CliArgs, SimulatedOnSurvivesSmpirunsWordSplitting) {
  const std::string name = "configs/platforms/x.yaml (order /tmp/my order*.txt) 100%";
  const std::string sent = smpi_arg_encode(name);
  EXPECT_EQ(sent.find_first_of(" \t*?[]"), std::string::npos) << sent;
  EXPECT_EQ(parse_args({"--simulated-on", sent}, "run").simulated_on, name);
  EXPECT_EQ(usage_error({"--simulated-on", "50%"}), "--simulated-on: a '%' that is not an escape");
  EXPECT_EQ(usage_error({"--simulated-on", "a%2"}), "--simulated-on: a '%' that is not an escape");
}

TEST(CliArgs, CalibrateAndCalibrationAreSimOptions) {
  const Args a = parse_args({"--calibrate", "m.json", "--calibration", "c.yaml"}, "sim");
  EXPECT_EQ(a.calibrate, std::vector<std::string>{"m.json"});
  EXPECT_EQ(a.calibration, "c.yaml");
  EXPECT_TRUE(parse_args({}, "sim").calibrate.empty());
  // Repeated: every run, in the order given (the host links' first).
  EXPECT_EQ(parse_args({"--calibrate", "a.json", "--calibrate", "b.json"}, "sim").calibrate,
            (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_EQ(usage_error({"--calibrate", "m.json"}),
            "run: unknown option '--calibrate' (see evbench --help)");
  try {
    parse_args({"--calibrate"}, "sim");
    FAIL() << "--calibrate without a file accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--calibrate needs"), std::string::npos) << e.what();
  }
}

TEST(CliArgs, SmpiFactorsAreDefaultOrOne) {
  EXPECT_EQ(parse_args({}, "sim").smpi_factors, "");
  EXPECT_EQ(parse_args({"--smpi-factors", "one"}, "sim").smpi_factors, "one");
  EXPECT_EQ(parse_args({"--smpi-factors", "default"}, "sim").smpi_factors, "default");
  try {
    parse_args({"--smpi-factors", "1"}, "sim");
    FAIL() << "--smpi-factors 1 accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--smpi-factors 1: expected default or one", 0), 0u)
        << e.what();
  }
  EXPECT_EQ(usage_error({"--smpi-factors", "one"}),
            "run: unknown option '--smpi-factors' (see evbench --help)");
}

TEST(CliArgs, CommandsKnownAndSuggested) {
  for (const auto& c : cli_commands()) EXPECT_EQ(command_error(c), "(no error)") << c;
  EXPECT_EQ(command_error("valdate"), "unknown command 'valdate' (did you mean 'validate'?)");
  EXPECT_EQ(command_error("VALIDATE"), "unknown command 'VALIDATE' (did you mean 'validate'?)");
  EXPECT_EQ(command_error("Run"), "unknown command 'Run' (did you mean 'run'?)");
  EXPECT_EQ(command_error("benchmark"), "unknown command 'benchmark' (see evbench --help)");
  EXPECT_EQ(command_error("--quiet"),
            "'--quiet' is not a command: evbench <command> [options] (see evbench --help)");
}

}  // namespace
}  // namespace evb
