// Each kind of bad configuration gets its own message, with FILE:LINE:COLUMN
// (1-based) and the key.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "core/config_loader.hpp"
#include "core/error.hpp"

namespace evb {
namespace {

PluginKeys plugins() {
  PluginKeys p;
  p.drivers = {"tcp", "mpi"};
  p.bootstraps = {"local", "mpi"};
  KeySpec sndbuf;
  sndbuf.path = "sndbuf";
  sndbuf.type = KeyType::size;
  sndbuf.default_value = "4MiB";
  sndbuf.unit = "B";
  sndbuf.min = 0;
  sndbuf.max = 1 << 30;
  sndbuf.doc = "socket send buffer";
  p.driver_options["tcp"] = {sndbuf};
  p.driver_max_segments["tcp"] = 1024;
  p.drivers_without_rdma_write = {"tcp", "mpi"};
  return p;
}

// The error message of loading `yaml` (and overrides), or "" when it loads.
std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    load_config_text(yaml, "run.yaml", overrides, plugins());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(haystack, needle)                                    \
  do {                                                                  \
    const std::string h_ = (haystack);                                  \
    EXPECT_NE(h_.find(needle), std::string::npos) << "message: " << h_; \
  } while (0)

TEST(ConfigErrors, UnknownKeySuggestsNearest) {
  const auto e = error_of("nodes: 4\nparallel: 2\ncredit: 3\n");
  EXPECT_HAS(e, "run.yaml:3:1: credit: unknown key");
  EXPECT_HAS(e, "did you mean 'credits'?");
}

TEST(ConfigErrors, UnknownNestedKey) {
  const auto e = error_of("fragment:\n  size: 1MiB\n  sise: 2\n");
  EXPECT_HAS(e, "run.yaml:3:3: fragment.sise: unknown key");
  EXPECT_HAS(e, "did you mean 'fragment.size'?");
}

TEST(ConfigErrors, BareLeafSuggestsNestedKey) {
  EXPECT_HAS(error_of("size: 1MiB\n"), "did you mean 'fragment.size'?");
}

TEST(ConfigErrors, UnknownKeyWithoutNearNeighbour) {
  const auto e = error_of("zzzzzzzzzzzzzzzz: 1\n");
  EXPECT_HAS(e, "run.yaml:1:1: zzzzzzzzzzzzzzzz: unknown key");
  EXPECT_EQ(e.find("did you mean"), std::string::npos) << e;
}

TEST(ConfigErrors, WrongType) {
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

TEST(ConfigErrors, OutOfRange) {
  EXPECT_HAS(error_of("credits: 0\n"), "run.yaml:1:10: credits: must be between 1 and 1024, got 0");
  EXPECT_HAS(error_of("verify.sample: 1.5\n"), "must be between 0 and 1, got 1.5");
  EXPECT_HAS(error_of("command_size: 32\n"),
             "command_size: must be between 64 B and 1 MiB, got 32 B");
  EXPECT_HAS(error_of("events: -1\n"), "events: must be at least 0, got -1");
  EXPECT_HAS(error_of("duration: 0s\n"), "duration: must be between 1 ms and 24 h, got 0 s");
}

TEST(ConfigErrors, ListElementPointsAtElement) {
  const auto e = error_of("ru_rate_factors: [1, 1, x, 1]\n");
  EXPECT_HAS(e, "run.yaml:1:25: ru_rate_factors: element 3: expected a number, got 'x'");
  EXPECT_HAS(error_of("ru_rate_factors: [1, 0, 1, 1]\n"),
             "element 2: must be between 0.001 and 1000, got 0");
}

TEST(ConfigErrors, BadSizeAndDuration) {
  EXPECT_HAS(error_of("\nfragment.size: 4M\n"),
             "run.yaml:2:16: fragment.size: ambiguous size unit 'M'");
  EXPECT_HAS(error_of("warmup: soon\n"), "run.yaml:1:9: warmup: expected a duration");
}

TEST(ConfigErrors, BadChoiceListsChoices) {
  const auto e = error_of("nodes: 4\nprotocol: pul\n");
  EXPECT_HAS(e, "run.yaml:2:11: protocol: 'pul' is not one of pull, push, pull-noevm, one-to-one");
  EXPECT_HAS(e, "did you mean 'pull'?");
  EXPECT_HAS(error_of("layout: with_rank0\n"), "'with_rank0' is not one of rubu, split");
  EXPECT_HAS(error_of("evm: with_rank0\n"), "did you mean 'with-rank0'?");
}

TEST(ConfigErrors, DriverAndBootstrapFromPlugins) {
  EXPECT_HAS(error_of("driver: tpc\n"), "run.yaml:1:9: driver: 'tpc' is not one of tcp, mpi");
  EXPECT_HAS(error_of("driver: tpc\n"), "did you mean 'tcp'?");
  EXPECT_HAS(error_of("bootstrap: slurm\n"), "bootstrap: 'slurm' is not one of local, mpi");
}

TEST(ConfigErrors, DriverOptions) {
  EXPECT_HAS(error_of("driver_options:\n  sndbf: 4MiB\n"),
             "run.yaml:2:3: driver_options.sndbf: unknown option of driver 'tcp' (did you mean "
             "'sndbuf'?)");
  EXPECT_HAS(error_of("driver_options:\n  sndbuf: lots\n"),
             "run.yaml:2:11: driver_options.sndbuf: expected a size");
  EXPECT_HAS(error_of("driver: mpi\ndriver_options: {sndbuf: 1MiB}\n"),
             "driver_options.sndbuf: unknown option of driver 'mpi' (it has no options)");
  EXPECT_HAS(error_of("driver_options: 5\n"), "driver_options: expected a map");
}

TEST(ConfigErrors, SyntaxError) {
  const auto e = error_of("nodes: 4\ncredits: [1, 2\nparallel: 2\n");
  EXPECT_HAS(e, "run.yaml:");
  EXPECT_HAS(e, "YAML syntax error");
  EXPECT_HAS(error_of("nodes: 4\n  bad indent: 1\n"), "run.yaml:2:");
}

TEST(ConfigErrors, TopLevelMustBeAMap) {
  EXPECT_HAS(error_of("- nodes\n- 4\n"), "run.yaml:1:1: the top level must be a map");
  EXPECT_HAS(error_of("just words\n"),
             "the top level must be a map of key: value, got 'just words'");
}

TEST(ConfigErrors, DuplicateKey) {
  EXPECT_HAS(error_of("credits: 2\nnodes: 4\ncredits: 3\n"),
             "run.yaml:3:1: credits: set twice (first on line 1)");
  EXPECT_HAS(error_of("fragment:\n  size: 1MiB\nfragment.size: 2MiB\n"),
             "run.yaml:3:1: fragment.size: set twice (first on line 2)");
}

TEST(ConfigErrors, OverrideErrors) {
  EXPECT_HAS(error_of("", {"credits=abc"}),
             "--set credits=abc: credits: expected an integer, got 'abc'");
  EXPECT_HAS(error_of("", {"credit=3"}),
             "--set credit=3: credit: unknown key (did you mean 'credits'?)");
  EXPECT_HAS(error_of("", {"credits"}), "--set credits: expected KEY=VALUE");
  EXPECT_HAS(error_of("", {"=4"}), "--set =4: expected KEY=VALUE");
  EXPECT_HAS(error_of("", {"ru_rate_factors=[1,1"}),
             "--set ru_rate_factors=[1,1: ru_rate_factors: cannot parse the value");
  EXPECT_HAS(error_of("", {"driver_options.sndbuf=big"}),
             "--set driver_options.sndbuf=big: driver_options.sndbuf: expected a size");
  EXPECT_HAS(error_of("", {"fragment={size: 0}"}),
             "--set fragment={size: 0}: fragment.size: must be between 1 B and 1 GiB, got 0 B");
}

TEST(ConfigErrors, ReadingAMissingFile) {
  try {
    load_config("/nonexistent/evbench.yaml", {}, plugins());
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_HAS(std::string(e.what()), "/nonexistent/evbench.yaml: cannot read the configuration");
  }
}

TEST(ConfigErrors, ReadingADirectory) {
  try {
    load_config("/tmp", {}, plugins());
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_HAS(std::string(e.what()), "/tmp: cannot read the configuration: it is a directory");
  }
}

TEST(ConfigErrors, FragmentLayoutBeyondTheDriversSegmentsIsRefused) {
  const auto e =
      error_of("fragment:\n  data_segments: 1000\n  meta_segments: 64\n  meta_size: 64\n");
  EXPECT_HAS(e, "run.yaml:2:3: fragment.data_segments:");
  EXPECT_HAS(e, "1065 segments, but driver tcp sends at most 1024 per operation");
  // The largest layout the table allows for each key alone still fits tcp.
  EXPECT_EQ(error_of("fragment:\n  data_segments: 64\n  meta_segments: 64\n  meta_size: 64\n"), "");
}

TEST(ConfigErrors, WritePathNeedsADriverWithRdmaWrite) {
  const auto e = error_of("driver: tcp\ndata_path: write\n");
  EXPECT_HAS(e, "run.yaml:2:1: data_path:");
  EXPECT_HAS(e, "driver tcp has no rdma_write");
  EXPECT_HAS(error_of("protocol: one-to-one\ndata_path: write\n"),
             "data_path write applies to the event builders, not to one-to-one");
  EXPECT_EQ(error_of("driver: tcp\ndata_path: send\n"), "");
}

TEST(ConfigErrors, FileErrorsNameThePath) {
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
