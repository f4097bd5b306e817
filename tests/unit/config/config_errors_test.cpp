// Each kind of bad configuration gets its own message, with FILE:LINE:COLUMN
// (1-based) and the key.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "config_error_of.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

const PluginKeys& plugins() {
  return test::real_plugins();
}

// Configurations that leave `driver` at its default (tcp) need it built.
using ConfigErrors = test::WithDefaultDriver;

using test::error_of;

TEST_F(ConfigErrors, UnknownKeySuggestsNearest) {
  const auto e = error_of("nodes: 4\nparallel: 2\ncredit: 3\n");
  EXPECT_HAS(e, "run.yaml:3:1: credit: unknown key");
  EXPECT_HAS(e, "did you mean 'credits'?");
}

TEST_F(ConfigErrors, UnknownNestedKey) {
  const auto e = error_of("fragment:\n  size: 1MiB\n  sise: 2\n");
  EXPECT_HAS(e, "run.yaml:3:3: fragment.sise: unknown key");
  EXPECT_HAS(e, "did you mean 'fragment.size'?");
}

TEST_F(ConfigErrors, BareLeafSuggestsNestedKey) {
  EXPECT_HAS(error_of("size: 1MiB\n"), "did you mean 'fragment.size'?");
}

TEST_F(ConfigErrors, UnknownKeyWithoutNearNeighbour) {
  const auto e = error_of("zzzzzzzzzzzzzzzz: 1\n");
  EXPECT_HAS(e, "run.yaml:1:1: zzzzzzzzzzzzzzzz: unknown key");
  EXPECT_EQ(e.find("did you mean"), std::string::npos) << e;
}

TEST_F(ConfigErrors, WrongType) {
  const auto e = error_of("nodes: 4\ncredits: abc\n");
  EXPECT_HAS(e, "run.yaml:2:10: credits: expected an integer, got 'abc'");
  EXPECT_HAS(error_of("credits: 1.5\n"), "expected an integer, got '1.5'");
  EXPECT_HAS(error_of("credits: [1, 2]\n"), "expected an integer, got a list");
  EXPECT_HAS(error_of("credits:\n"), "run.yaml:1:1: credits: expected an integer, got nothing");
  EXPECT_HAS(error_of("verify:\n  sample: half\n"),
             "run.yaml:2:11: verify.sample: expected a number, got 'half'");
  EXPECT_HAS(error_of("shift: far\n"), "expected an integer or 'scan', got 'far'");
  EXPECT_HAS(error_of("ru_rate_factors: 2\n"), "ru_rate_factors: expected a list of numbers");
  EXPECT_HAS(error_of("fragment: 1MiB\n"), "fragment: is a group of keys (fragment.size");
}

TEST_F(ConfigErrors, OutOfRange) {
  EXPECT_HAS(error_of("credits: 0\n"), "run.yaml:1:10: credits: must be between 1 and 1024, got 0");
  EXPECT_HAS(error_of("verify.sample: 1.5\n"), "must be between 0 and 1, got 1.5");
  EXPECT_HAS(error_of("command_size: 32\n"),
             "command_size: must be between 64 B and 1 MiB, got 32 B");
  EXPECT_HAS(error_of("events: -1\n"), "events: must be at least 0, got -1");
  EXPECT_HAS(error_of("duration: 0s\n"), "duration: must be between 1 ms and 24 h, got 0 s");
}

TEST_F(ConfigErrors, ListElementPointsAtElement) {
  const auto e = error_of("ru_rate_factors: [1, 1, x, 1]\n");
  EXPECT_HAS(e, "run.yaml:1:25: ru_rate_factors: element 3: expected a number, got 'x'");
  EXPECT_HAS(error_of("ru_rate_factors: [1, 0, 1, 1]\n"),
             "element 2: must be between 0.001 and 1000, got 0");
}

TEST_F(ConfigErrors, BadSizeAndDuration) {
  EXPECT_HAS(error_of("\nfragment.size: 4M\n"),
             "run.yaml:2:16: fragment.size: ambiguous size unit 'M'");
  EXPECT_HAS(error_of("warmup: soon\n"), "run.yaml:1:9: warmup: expected a duration");
}

TEST_F(ConfigErrors, BadChoiceListsChoices) {
  const auto e = error_of("nodes: 4\nprotocol: pul\n");
  EXPECT_HAS(e, "run.yaml:2:11: protocol: 'pul' is not one of pull, push, pull-noevm, one-to-one");
  EXPECT_HAS(e, "did you mean 'pull'?");
  EXPECT_HAS(error_of("layout: with_rank0\n"), "'with_rank0' is not one of rubu, split");
  EXPECT_HAS(error_of("evm: with_rank0\n"), "did you mean 'with-rank0'?");
  // Two swapped letters are one edit: "tpc" is tcp, not mpi.
  EXPECT_HAS(error_of("scheduling: barerl\n"), "did you mean 'barrel'?");
  if (test::built("tcp") && test::built("mpi")) {
    EXPECT_HAS(error_of("driver: tpc\n"), "did you mean 'tcp'?");
  }
}

// Values stay exact (`PULL` is not accepted), but the wrong letter case is
// named as such: three edits away, yet only the shift key.
TEST_F(ConfigErrors, ChoiceInWrongCaseSuggestsTheValue) {
  EXPECT_HAS(error_of("", {"protocol=PULL"}),
             "--set protocol=PULL: protocol: 'PULL' is not one of pull, push");
  EXPECT_HAS(error_of("", {"protocol=PULL"}), "(did you mean 'pull'?)");
  EXPECT_HAS(error_of("layout: SPLIT\n"), "(did you mean 'split'?)");
  if (test::built("tcp")) {
    EXPECT_HAS(error_of("", {"driver=TCP"}), "--set driver=TCP: driver: 'TCP' is not one of");
    EXPECT_HAS(error_of("", {"driver=TCP"}), "(did you mean 'tcp'?)");
  }
}

TEST_F(ConfigErrors, DriverAndBootstrapFromPlugins) {
  // The choices are the plug-ins built into evbench, in registry order.
  EXPECT_HAS(error_of("driver: tpc\n"),
             "run.yaml:1:9: driver: 'tpc' is not one of " + test::joined(plugins().drivers, ", "));
  EXPECT_HAS(error_of("bootstrap: slurm\n"),
             "bootstrap: 'slurm' is not one of " + test::joined(plugins().bootstraps, ", "));
  if (test::built("tcp")) {
    EXPECT_HAS(error_of("driver: tco\n"), "did you mean 'tcp'?");
  }
  for (const auto& d : plugins().drivers) EXPECT_EQ(error_of("driver: " + d + "\n"), "") << d;
}

TEST_F(ConfigErrors, DriverOptions) {
  EVB_REQUIRE_DRIVER("tcp");
  ASSERT_NE(test::driver_option("tcp", "sndbuf"), nullptr);
  ASSERT_EQ(test::driver_option("tcp", "sndbuf")->type, KeyType::size);
  EXPECT_HAS(error_of("driver_options:\n  sndbf: 4MiB\n"),
             "run.yaml:2:3: driver_options.sndbf: unknown option of driver 'tcp' (did you mean "
             "'sndbuf'?)");
  EXPECT_HAS(error_of("driver_options:\n  sndbuf: lots\n"),
             "run.yaml:2:11: driver_options.sndbuf: expected a size");
  EXPECT_HAS(error_of("driver_options: 5\n"), "driver_options: expected a map");
}

// An option no neighbour resembles: the message lists the driver's real options.
TEST_F(ConfigErrors, UnknownDriverOptionListsTheDriversOptions) {
  for (const auto& [driver, specs] : plugins().driver_options) {
    if (specs.empty()) continue;
    std::string list;
    for (const KeySpec& k : specs) list += " " + k.path;
    EXPECT_HAS(error_of("driver: " + driver + "\ndriver_options: {zzzzzzzzzzzz: 1}\n"),
               "driver_options.zzzzzzzzzzzz: unknown option of driver '" + driver +
                   "' (its options:" + list + ")");
  }
}

// A driver that declares no options (none of the built ones does: this one
// is added to the real table for the test) refuses every option.
TEST_F(ConfigErrors, DriverWithoutOptions) {
  PluginKeys p = plugins();
  p.drivers.push_back("bare");
  p.driver_options["bare"] = {};
  EXPECT_HAS(error_of("driver: bare\ndriver_options: {sndbuf: 1MiB}\n", {}, p),
             "driver_options.sndbuf: unknown option of driver 'bare' (it has no options)");
}

TEST_F(ConfigErrors, SyntaxError) {
  const auto e = error_of("nodes: 4\ncredits: [1, 2\nparallel: 2\n");
  EXPECT_HAS(e, "run.yaml:");
  EXPECT_HAS(e, "YAML syntax error");
  EXPECT_HAS(error_of("nodes: 4\n  bad indent: 1\n"), "run.yaml:2:");
}

TEST_F(ConfigErrors, TopLevelMustBeAMap) {
  EXPECT_HAS(error_of("- nodes\n- 4\n"), "run.yaml:1:1: the top level must be a map");
  EXPECT_HAS(error_of("just words\n"),
             "the top level must be a map of key: value, got 'just words'");
}

TEST_F(ConfigErrors, DuplicateKey) {
  EXPECT_HAS(error_of("credits: 2\nnodes: 4\ncredits: 3\n"),
             "run.yaml:3:1: credits: set twice (first on line 1)");
  EXPECT_HAS(error_of("fragment:\n  size: 1MiB\nfragment.size: 2MiB\n"),
             "run.yaml:3:1: fragment.size: set twice (first on line 2)");
}

// A bare number is seconds: from 1000 on it must say its unit, in a file
// (with its line), on the command line and in every duration key.
TEST_F(ConfigErrors, LargeBareDurationIsRefusedEverywhere) {
  EXPECT_EQ(error_of("", {"duration=2000"}),
            "--set duration=2000: duration: a bare number is seconds (33 min); write 2000ms or "
            "2000s");
  EXPECT_EQ(error_of("nodes: 4\nduration: 2000\n"),
            "run.yaml:2:11: duration: a bare number is seconds (33 min); write 2000ms or 2000s");
  for (const char* key :
       {"fu.processing_time", "warmup", "report_interval", "peer_timeout", "failure_detection"})
    EXPECT_HAS(error_of("", {std::string(key) + "=1500"}),
               std::string(key) + ": a bare number is seconds (25 min); write 1500ms or 1500s");
  EXPECT_HAS(error_of("faults: [{at: 1500, kill: bu1}]\n"),
             "at: expected a duration between 0 s and 1 day, got '1500' (a bare number is "
             "seconds (25 min); write 1500ms or 1500s)");
  EXPECT_HAS(error_of("control: [{at: 1500, parallel: 2}]\n"),
             "a bare number is seconds (25 min); write 1500ms or 1500s");
  if (test::built("tcp")) {
    EXPECT_HAS(error_of("", {"driver_options.connect_timeout=5000"}),
               "driver_options.connect_timeout: a bare number is seconds (1.39 h); write "
               "5000ms or 5000s");
  }
  EXPECT_EQ(error_of("", {"duration=999"}), "");
  EXPECT_EQ(error_of("", {"duration=2000ms"}), "");
}

TEST_F(ConfigErrors, OverrideErrors) {
  EXPECT_HAS(error_of("", {"credits=abc"}),
             "--set credits=abc: credits: expected an integer, got 'abc'");
  EXPECT_HAS(error_of("", {"credit=3"}),
             "--set credit=3: credit: unknown key (did you mean 'credits'?)");
  EXPECT_HAS(error_of("", {"credits"}), "--set credits: expected KEY=VALUE");
  EXPECT_HAS(error_of("", {"=4"}), "--set =4: expected KEY=VALUE");
  EXPECT_HAS(error_of("", {"ru_rate_factors=[1,1"}),
             "--set ru_rate_factors=[1,1: ru_rate_factors: cannot parse the value");
  if (test::built("tcp")) {
    EXPECT_HAS(error_of("", {"driver_options.sndbuf=big"}),
               "--set driver_options.sndbuf=big: driver_options.sndbuf: expected a size");
  }
  EXPECT_HAS(error_of("", {"fragment={size: 0}"}),
             "--set fragment={size: 0}: fragment.size: must be between 1 B and 1 GiB, got 0 B");
}

TEST_F(ConfigErrors, ReadingAMissingFile) {
  try {
    load_config("/nonexistent/evbench.yaml", {}, plugins());
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_HAS(std::string(e.what()), "/nonexistent/evbench.yaml: cannot read the configuration");
  }
}

TEST_F(ConfigErrors, ReadingADirectory) {
  try {
    load_config("/tmp", {}, plugins());
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_HAS(std::string(e.what()), "/tmp: cannot read the configuration: it is a directory");
  }
}

// What `driver` will report once started with its default options, as its
// factory answers before start.
Capabilities queried(const std::string& driver) {
  Config c;
  c.driver = driver;
  const auto caps = plugins().driver_capabilities(c);
  EXPECT_TRUE(caps) << driver << ": no capabilities for a built driver";
  return caps.value_or(Capabilities{});
}

// Each driver's limit as its factory answers it before start: a layout of
// one more segment than the limit is refused, naming the limit; the limit
// fits.
TEST_F(ConfigErrors, FragmentLayoutBeyondTheDriversSegmentsIsRefused) {
  bool any = false;
  for (const auto& driver : plugins().drivers) {
    const size_t max = queried(driver).max_segments;
    if (max == 0) continue;  // known only once the driver runs: checked at set-up
    any = true;
    // 1 header + 1 metadata segment + data segments.
    const auto layout = [&](size_t data) {
      return "driver: " + driver + "\nfragment:\n  data_segments: " + std::to_string(data) +
             "\n  meta_segments: 1\n  meta_size: 64\n";
    };
    if (max - 1 > 4096) continue;  // fragment.data_segments' own range refuses first
    const auto e = error_of(layout(max - 1));
    EXPECT_HAS(e, "run.yaml:3:3: fragment.data_segments:");
    EXPECT_HAS(e, std::to_string(max + 1) + " segments, but driver " + driver + " sends at most " +
                      std::to_string(max) + " per operation");
    EXPECT_EQ(error_of(layout(max - 2)), "") << driver;
  }
  ASSERT_TRUE(any) << "no driver knows its max_segments before start";
  // The largest layout the table allows for each key alone fits tcp.
  if (test::built("tcp")) {
    EXPECT_EQ(error_of("fragment:\n  data_segments: 64\n  meta_segments: 64\n  meta_size: 64\n"),
              "");
  }
}

// data_path write is refused for the drivers whose factory says they will
// have no rdma_write, and accepted for the others.
TEST_F(ConfigErrors, WritePathNeedsADriverWithRdmaWrite) {
  for (const auto& d : plugins().drivers) {
    const auto e = error_of("driver: " + d + "\ndata_path: write\n");
    if (!queried(d).rdma_write) {
      EXPECT_HAS(e, "run.yaml:2:1: data_path:");
      EXPECT_HAS(e, "driver " + d + " has no rdma_write");
    } else {
      EXPECT_EQ(e, "") << d;
    }
    EXPECT_EQ(error_of("driver: " + d + "\ndata_path: send\n"), "") << d;
  }
  // The point-to-point micro-benchmarks take the write path where the driver
  // has one; the alltoall baseline (a library collective) never does.
  for (const auto& d : plugins().drivers) {
    if (!queried(d).rdma_write) continue;
    for (const char* p : {"one-to-one", "many-to-one", "gather", "gather-cmd-meta"})
      EXPECT_EQ(error_of(std::string("protocol: ") + p + "\ndriver: " + d + "\ndata_path: write\n"),
                "")
          << p << " over " << d;
  }
  EXPECT_HAS(error_of("protocol: alltoall\ndata_path: write\n"),
             "data_path write does not apply to protocol alltoall");
}

// `senders` names RUs 0..senders-1: at most every node.
TEST_F(ConfigErrors, SendersAtMostNodes) {
  EXPECT_EQ(error_of("protocol: one-to-one\nnodes: 2\nsenders: 1\n"), "");
  EXPECT_HAS(error_of("protocol: one-to-one\nnodes: 2\nsenders: 3\n"),
             "senders (3) must be at most nodes (2)");
}

TEST_F(ConfigErrors, FileErrorsNameThePath) {
  const std::string path = ::testing::TempDir() + "evbench_config_errors_test.yaml";
  {
    std::ofstream out(path);
    out << "# a run\nnodes: 4\n\ncredits: 0\n";
  }
  try {
    load_config(path, {}, plugins());
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_HAS(std::string(e.what()), path + ":4:10: credits: must be between 1 and 1024, got 0");
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace evb
