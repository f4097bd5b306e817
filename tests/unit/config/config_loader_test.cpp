// Loading: defaults, values of every type, overrides, consistency rules,
// driver options and the YAML round trip.
#include "core/config_loader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "real_plugins.hpp"
#include "support/source_dir.hpp"

namespace evb {
namespace {

const PluginKeys& plugins() {
  return test::real_plugins();
}

// Loading with the default driver (tcp) needs it built.
using ConfigLoader = test::WithDefaultDriver;
using ConfigContradictions = test::WithDefaultDriver;
using ConfigRoundTrip = test::WithDefaultDriver;
using ConfigLoaderWarnings = test::WithDefaultDriver;

Config load(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return load_config_text(yaml, "test.yaml", overrides, plugins());
}

std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    load(yaml, overrides);
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

// Field-by-field equality (Config has no operator==); `source` is left out.
void expect_same(const Config& a, const Config& b) {
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.layout, b.layout);
  EXPECT_EQ(a.evm, b.evm);
  EXPECT_EQ(a.fu_per_bu, b.fu_per_bu);
  EXPECT_EQ(a.fu.processing_time_s, b.fu.processing_time_s);
  EXPECT_EQ(a.fu.accept_ratio, b.fu.accept_ratio);
  EXPECT_EQ(a.protocol, b.protocol);
  EXPECT_EQ(a.scheduling, b.scheduling);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.credits, b.credits);
  EXPECT_EQ(a.parallel, b.parallel);
  EXPECT_EQ(a.shift, b.shift);
  EXPECT_EQ(a.shift_scan, b.shift_scan);
  EXPECT_EQ(a.fragment.size, b.fragment.size);
  EXPECT_EQ(a.fragment.distribution, b.fragment.distribution);
  EXPECT_EQ(a.fragment.spread, b.fragment.spread);
  EXPECT_EQ(a.fragment.max_size, b.fragment.max_size);
  EXPECT_EQ(a.fragment.data_segments, b.fragment.data_segments);
  EXPECT_EQ(a.fragment.meta_size, b.fragment.meta_size);
  EXPECT_EQ(a.fragment.meta_segments, b.fragment.meta_segments);
  EXPECT_EQ(a.ru_rate_factors, b.ru_rate_factors);
  EXPECT_EQ(a.ru_buffer, b.ru_buffer);
  EXPECT_EQ(a.command_size, b.command_size);
  EXPECT_EQ(a.duration_s, b.duration_s);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.warmup_s, b.warmup_s);
  EXPECT_EQ(a.report_interval_s, b.report_interval_s);
  EXPECT_EQ(a.peer_timeout_s, b.peer_timeout_s);
  EXPECT_EQ(a.verify_sample, b.verify_sample);
  EXPECT_EQ(a.corrupt_every, b.corrupt_every);
  EXPECT_EQ(a.driver, b.driver);
  EXPECT_EQ(a.driver_options, b.driver_options);
  EXPECT_EQ(a.bootstrap, b.bootstrap);
  EXPECT_EQ(a.poll_mode, b.poll_mode);
}

// driver_options as the loader leaves them when `driver`'s file sets each
// option with a default to that default (canonical units), from its table.
std::map<std::string, std::string> declared_defaults(const std::string& driver) {
  std::string yaml = "driver: " + driver + "\ndriver_options:\n";
  for (const KeySpec& k : plugins().driver_options.at(driver))
    if (!k.default_value.empty()) yaml += "  " + k.path + ": '" + k.default_value + "'\n";
  return load(yaml).driver_options;
}

TEST_F(ConfigLoader, EmptyFileGivesDefaults) {
  Config c = load("");
  Config expected;
  expected.driver_options = declared_defaults("tcp");
  EXPECT_FALSE(expected.driver_options.empty());
  expect_same(c, expected);
  EXPECT_EQ(c.source, "test.yaml");
  expect_same(load("# only a comment\n"), expected);
  EXPECT_EQ(c.nodes, 4);
  EXPECT_EQ(c.fragment.size, 512u * 1024);
  EXPECT_EQ(c.ru_buffer, 64ull << 20);
  EXPECT_DOUBLE_EQ(c.verify_sample, 0.015625);
  EXPECT_EQ(c.poll_mode, PollMode::automatic);
}

TEST_F(ConfigLoader, DefaultsWithoutAFile) {
  Config c = load_config("", {"credits=3"}, plugins());
  EXPECT_EQ(c.credits, 3);
  EXPECT_EQ(c.source, "<defaults>");
}

TEST_F(ConfigLoader, TableDefaultsMatchConfigStruct) {
  // With no plug-in information nothing is added to driver_options.
  Config c = load_config_text("", "x", {}, PluginKeys{});
  Config plain;
  expect_same(c, plain);
}

TEST_F(ConfigLoader, EveryKeyIsRead) {
  const Config c = load(R"(
nodes: 8
layout: split
evm: with-rank0
fu_per_bu: 3
fu:
  processing_time: 2ms
  accept_ratio: 0.25
protocol: push
scheduling: random
seed: 42
credits: 16
parallel: 8
shift: 3
fragment:
  size: 1MiB
  distribution: lognormal
  spread: 0.5
  max_size: 8MiB
  data_segments: 4
  meta_size: 256B
  meta_segments: 2
ru_rate_factors: [1, 1, 2, 1, 1, 1, 1, 0.5]
ru_buffer: 1GiB
command_size: 128
duration: 10s
events: 0
warmup: 250ms
report_interval: 2s
peer_timeout: 1min
verify:
  sample: 1
fault.corrupt_every: 1000
driver: tcp
driver_options:
  sndbuf: 8MiB
  nodelay: false
bootstrap: env
poll_mode: yield
)");
  EXPECT_EQ(c.nodes, 8);
  EXPECT_EQ(c.layout, Layout::split);
  EXPECT_EQ(c.evm, EvmPlacement::with_rank0);
  EXPECT_EQ(c.fu_per_bu, 3);
  EXPECT_DOUBLE_EQ(c.fu.processing_time_s, 0.002);
  EXPECT_DOUBLE_EQ(c.fu.accept_ratio, 0.25);
  EXPECT_EQ(c.protocol, "push");
  EXPECT_EQ(c.scheduling, Scheduling::random);
  EXPECT_EQ(c.seed, 42u);
  EXPECT_EQ(c.credits, 16);
  EXPECT_EQ(c.parallel, 8);
  EXPECT_EQ(c.shift, 3);
  EXPECT_FALSE(c.shift_scan);
  EXPECT_EQ(c.fragment.size, 1u << 20);
  EXPECT_EQ(c.fragment.distribution, SizeDistribution::lognormal);
  EXPECT_DOUBLE_EQ(c.fragment.spread, 0.5);
  EXPECT_EQ(c.fragment.max_size, 8u << 20);
  EXPECT_EQ(c.fragment.data_segments, 4u);
  EXPECT_EQ(c.fragment.meta_size, 256u);
  EXPECT_EQ(c.fragment.meta_segments, 2u);
  EXPECT_EQ(c.ru_rate_factors, (std::vector<double>{1, 1, 2, 1, 1, 1, 1, 0.5}));
  EXPECT_EQ(c.ru_buffer, 1ull << 30);
  EXPECT_EQ(c.command_size, 128u);
  EXPECT_DOUBLE_EQ(c.duration_s, 10);
  EXPECT_DOUBLE_EQ(c.warmup_s, 0.25);
  EXPECT_DOUBLE_EQ(c.report_interval_s, 2);
  EXPECT_DOUBLE_EQ(c.peer_timeout_s, 60);
  EXPECT_DOUBLE_EQ(c.verify_sample, 1.0);
  EXPECT_EQ(c.corrupt_every, 1000u);
  EXPECT_EQ(c.driver, "tcp");
  EXPECT_EQ(c.driver_options.at("sndbuf"), "8388608");
  EXPECT_EQ(c.driver_options.at("nodelay"), "false");
  // The options not set keep their declared defaults.
  for (const auto& [key, value] : declared_defaults("tcp"))
    if (key != "sndbuf" && key != "nodelay") {
      EXPECT_EQ(c.driver_options.at(key), value) << key;
    }
  EXPECT_EQ(c.bootstrap, "env");
  EXPECT_EQ(c.poll_mode, PollMode::yield);
}

TEST_F(ConfigLoader, ShiftScan) {
  Config c = load("protocol: one-to-one\nshift: scan\n");
  EXPECT_TRUE(c.shift_scan);
  c = load("protocol: one-to-one\nshift: 2\n");
  EXPECT_FALSE(c.shift_scan);
  EXPECT_EQ(c.shift, 2);
}

TEST_F(ConfigLoader, OverridesApplyAfterTheFile) {
  Config c = load("credits: 2\nnodes: 4\n",
                  {"credits=8", "ru_rate_factors=[1,1,2,1]", "driver_options.sndbuf=4MiB",
                   "fragment.size=64KiB", "protocol=pull-noevm",
                   "fragment={meta_size: 64, "
                   "meta_segments: 1}"});
  EXPECT_EQ(c.credits, 8);
  EXPECT_EQ(c.ru_rate_factors, (std::vector<double>{1, 1, 2, 1}));
  EXPECT_EQ(c.driver_options.at("sndbuf"), "4194304");
  EXPECT_EQ(c.fragment.size, 64u * 1024);
  EXPECT_EQ(c.fragment.meta_size, 64u);
  EXPECT_EQ(c.protocol, "pull-noevm");
}

TEST_F(ConfigLoader, LaterOverrideWins) {
  EXPECT_EQ(load("", {"credits=3", "credits=5"}).credits, 5);
  EXPECT_EQ(load("driver_options: {sndbuf: 1MiB}\n", {"driver_options.sndbuf=2MiB"})
                .driver_options.at("sndbuf"),
            "2097152");
}

TEST_F(ConfigLoader, OverrideCanFixTheFile) {
  // Contradictions are checked only after the overrides.
  EXPECT_EQ(load("nodes: 2\nparallel: 2\n", {"parallel=1"}).parallel, 1);
  EXPECT_EQ(load("nodes: 2\n", {"parallel=2"}).parallel, 2);
}

TEST_F(ConfigLoader, DottedKeysInTheFile) {
  EXPECT_EQ(load("fragment.size: 2KiB\n").fragment.size, 2048u);
  EXPECT_EQ(load("driver_options.sndbuf: 1KiB\n").driver_options.at("sndbuf"), "1024");
}

TEST_F(ConfigLoader, QuotedScalarsAccepted) {
  EXPECT_EQ(load("credits: \"3\"\n").credits, 3);
  EXPECT_EQ(load("fragment.size: '1 MiB'\n").fragment.size, 1u << 20);
}

// An option whose declared default is empty stays unset unless given.
TEST_F(ConfigLoader, EmptyDefaultOptionsStayUnset) {
  bool any = false;
  for (const auto& [driver, specs] : plugins().driver_options) {
    for (const KeySpec& k : specs) {
      if (!k.default_value.empty()) continue;
      any = true;
      EXPECT_EQ(load("driver: " + driver + "\n").driver_options.count(k.path), 0u) << k.path;
    }
  }
  if (!any) GTEST_SKIP() << "no built driver has an option with an empty default";
}

TEST_F(ConfigLoader, WithoutPluginInformationOptionsAreKeptAsText) {
  Config c = load_config_text("driver: anything\ndriver_options: {x: 4MiB}\n", "t", {}, {});
  EXPECT_EQ(c.driver, "anything");
  EXPECT_EQ(c.driver_options.at("x"), "4MiB");
}

// ---- contradictions: named key, its line, the reason

TEST_F(ConfigContradictions, ParallelExceedsNodes) {
  EXPECT_HAS(error_of("nodes: 4\nparallel: 8\n"),
             "test.yaml:2:1: parallel: parallel (8) exceeds the number of RUs (4)");
  // parallel left at its default adapts to nodes instead (ConfigLoaderAdapt).
  EXPECT_EQ(error_of("credits: 1\nnodes: 2\n"), "");
  EXPECT_EQ(error_of("", {"nodes=2"}), "");
}

TEST_F(ConfigContradictions, RateFactorsPerRu) {
  EXPECT_HAS(error_of("nodes: 4\nru_rate_factors: [1, 2]\n"),
             "test.yaml:2:1: ru_rate_factors: has 2 entries but there are 4 RUs");
}

TEST_F(ConfigContradictions, MaxSizeBelowSize) {
  EXPECT_HAS(error_of("fragment:\n  size: 4KiB\n  max_size: 1KiB\n"),
             "test.yaml:3:3: fragment.max_size: fragment.max_size (1024 B) is smaller than "
             "fragment.size (4096 B)");
}

TEST_F(ConfigContradictions, WarmupNotShorterThanDuration) {
  EXPECT_HAS(error_of("duration: 1s\nwarmup: 1s\n"),
             "test.yaml:2:1: warmup: warmup (1 s) must be shorter than duration (1 s)");
  EXPECT_HAS(error_of("duration: 400ms\n"),
             "test.yaml:1:1: duration: warmup (500 ms) must be shorter than duration (400 ms)");
  EXPECT_EQ(load("duration: 1s\nwarmup: 1s\nevents: 1000\n").events, 1000u);
}

TEST_F(ConfigContradictions, RuBufferSmallerThanAFragment) {
  EXPECT_HAS(error_of("ru_buffer: 256KiB\n"),
             "test.yaml:1:1: ru_buffer: ru_buffer (256 KiB) is smaller than one maximal fragment "
             "(524288 B");
  EXPECT_HAS(error_of("ru_buffer: 1MiB\nfragment: {distribution: uniform, spread: 0.5}\n"),
             "ru_buffer (1 MiB) is smaller than one maximal fragment (2097152 B");
  EXPECT_HAS(error_of("ru_buffer: 512KiB\nfragment: {meta_size: 64, meta_segments: 1}\n"),
             "one maximal fragment (524352 B with metadata)");
  EXPECT_EQ(load("ru_buffer: 512KiB\n").ru_buffer, 512u * 1024);
}

TEST_F(ConfigContradictions, Spread) {
  // A spread left unset takes the distribution's documented default; an
  // explicit 0 contradicts the distribution.
  EXPECT_DOUBLE_EQ(load("fragment:\n  distribution: lognormal\n").fragment.spread, 0.3);
  EXPECT_DOUBLE_EQ(load("fragment:\n  distribution: uniform\n").fragment.spread, 0.25);
  EXPECT_DOUBLE_EQ(
      load_config_text("", "x", {"fragment.distribution=lognormal"}, PluginKeys{}).fragment.spread,
      0.3);
  EXPECT_HAS(error_of("fragment:\n  distribution: lognormal\n  spread: 0\n"),
             "test.yaml:3:3: fragment.spread: distribution lognormal needs fragment.spread > 0");
  EXPECT_HAS(error_of("fragment: {distribution: uniform, spread: 1.5}\n"),
             "fragment.spread (1.5) must be at most 1 for the uniform distribution");
  // fixed ignores the spread.
  EXPECT_DOUBLE_EQ(load("fragment: {distribution: fixed, spread: 0.3}\n").fragment.spread, 0.3);
}

TEST_F(ConfigContradictions, Metadata) {
  EXPECT_HAS(error_of("fragment.meta_segments: 2\n"),
             "test.yaml:1:1: fragment.meta_segments: fragment.meta_segments is 2 but "
             "fragment.meta_size is 0");
  EXPECT_HAS(error_of("fragment.meta_size: 64\n"), "fragment.meta_segments is 0");
}

TEST_F(ConfigContradictions, Protocols) {
  EXPECT_HAS(error_of("nodes: 4\nprotocol: alltoall\n"),
             "test.yaml:2:1: protocol: protocol alltoall needs a driver with a library "
             "all-to-all (");
  EXPECT_HAS(error_of("nodes: 4\nprotocol: alltoall\n"), "), driver is tcp");
  if (test::built("mpi")) {
    EXPECT_EQ(load("protocol: alltoall\ndriver: mpi\n").protocol, "alltoall");
  }
  EXPECT_HAS(error_of("nodes: 1\nparallel: 1\nprotocol: one-to-one\n"),
             "test.yaml:1:1: nodes: protocol one-to-one measures transfers between nodes: it "
             "needs at least 2 nodes, got 1");
  // An event builder may run on one node (one RU feeding one BU), with a warning.
  const Config one = load("nodes: 1\nparallel: 1\n");
  EXPECT_EQ(one.nodes, 1);
  ASSERT_EQ(one.warnings.size(), 1u);
  EXPECT_EQ(one.warnings.front(),
            "test.yaml:1:1: nodes: 1 node builds each event from one fragment (the only RU's): "
            "this measures one RU feeding one BU, not event building, which needs nodes >= 2");
  EXPECT_TRUE(load("nodes: 2\nparallel: 1\n").warnings.empty());
  EXPECT_HAS(error_of("protocol: one-to-one\nshift: 4\n"),
             "test.yaml:2:1: shift: shift (4) must be less than nodes (4)");
}

TEST_F(ConfigContradictions, DataSegments) {
  EXPECT_HAS(error_of("fragment: {size: 2, data_segments: 4}\nru_buffer: 4KiB\n"),
             "fragment.data_segments (4) exceeds fragment.size (2 B)");
}

TEST_F(ConfigLoader, ShippedDefaultConfigLoads) {
  const Config c =
      load_config(std::string(EVBENCH_SOURCE_DIR) + "/configs/default.yaml", {}, plugins());
  Config expected;
  expected.driver_options = load("").driver_options;
  expect_same(c, expected);
}

// ---- round trip

TEST_F(ConfigRoundTrip, DefaultsSurviveYaml) {
  const Config c = load("");
  expect_same(load(to_yaml(c)), c);
}

TEST_F(ConfigRoundTrip, EverythingChangedSurvivesYaml) {
  const Config c = load(R"(
nodes: 6
layout: split
evm: with-rank0
fu_per_bu: 2
fu: {processing_time: 1.25ms, accept_ratio: 0.1}
protocol: one-to-one
scheduling: random
seed: 9000000000000000000
credits: 7
parallel: 5
shift: scan
fragment: {size: 1.5MiB, distribution: uniform, spread: 0.3, max_size: 3MiB,
           data_segments: 3, meta_size: 100, meta_segments: 3}
ru_rate_factors: [1, 0.1, 0.7, 3.3333333333333335, 1e-3, 12]
ru_buffer: 100MB
command_size: 100
duration: 0.1
events: 123456789
warmup: 0.0333
report_interval: 0.3
peer_timeout: 7.5
verify.sample: 0.3
fault.corrupt_every: 17
driver_options: {sndbuf: 3KB, nodelay: off, connect_timeout: 250ms, bind: "eth 0: \"x\""}
bootstrap: env
poll_mode: block
)");
  const std::string yaml = to_yaml(c);
  const Config back = load(yaml);
  expect_same(back, c);
  EXPECT_EQ(to_yaml(back), yaml);
  EXPECT_EQ(back.driver_options.at("bind"), "eth 0: \"x\"");
}

// What the loader refuses bare (1000 s and more) is written with its unit,
// so a resolved configuration (and sim's copy for its ranks) reads back.
TEST_F(ConfigRoundTrip, LongDurationsCarryTheirUnit) {
  const Config c = load(
      "duration: 2000s\npeer_timeout: 2h\nwarmup: 999s\n"
      "faults: [{at: 1500s, stall: ru1, for: 1000s}]\n"
      "driver_options: {connect_timeout: 1h}\n");
  const std::string yaml = to_yaml(c);
  EXPECT_HAS(yaml, "duration: 2000s\n");
  EXPECT_HAS(yaml, "peer_timeout: 7200s  # 2 h\n");
  EXPECT_HAS(yaml, "warmup: 999\n");
  EXPECT_HAS(yaml, "{at: 1500s, stall: ru1, for: 1000s}");
  EXPECT_HAS(yaml, "connect_timeout: 3600s\n");
  const Config back = load(yaml);
  expect_same(back, c);
  EXPECT_EQ(to_yaml(back), yaml);
}

TEST_F(ConfigRoundTrip, YamlShowsCanonicalUnits) {
  const std::string yaml = to_yaml(load(""));
  EXPECT_HAS(yaml, "nodes: 4\n");
  EXPECT_HAS(yaml, "fragment:\n  size: 524288  # 512 KiB\n");
  EXPECT_HAS(yaml, "duration: 3\n");
  EXPECT_HAS(yaml, "warmup: 0.5  # 500 ms\n");
  EXPECT_HAS(yaml, "ru_rate_factors: []\n");
  EXPECT_HAS(to_yaml(load("driver_options: {connect_timeout: 1500ms}\n")),
             "driver_options:\n  bind: auto\n  connect_timeout: 1.5\n");
  EXPECT_HAS(yaml, "poll_mode: auto\n");
  EXPECT_HAS(yaml, "verify:\n  sample: 0.015625\n");
  EXPECT_HAS(yaml, "fault:\n  corrupt_every: 0\n");
}

}  // namespace
}  // namespace evb

namespace evb {
namespace {

// A key the user did not set adapts to the ones they did; an explicit
// contradiction stays an error.
TEST(ConfigLoaderAdapt, ParallelFollowsNodesUnlessSet) {
  EXPECT_EQ(load_config_text("nodes: 3\n", "x", {}, PluginKeys{}).parallel, 3);
  EXPECT_EQ(load_config_text("", "x", {"nodes=2"}, PluginKeys{}).parallel, 2);
  EXPECT_EQ(load_config_text("nodes: 8\n", "x", {}, PluginKeys{}).parallel, 4);
  EXPECT_EQ(load_config_text("nodes: 8\nparallel: 6\n", "x", {}, PluginKeys{}).parallel, 6);
  // The contradiction is an event builder's rule: checked with the protocols built.
  EXPECT_THROW(load_config_text("nodes: 3\nparallel: 4\n", "x", {}, test::real_plugins()),
               ConfigError);
}

}  // namespace
}  // namespace evb

namespace evb {
namespace {

// A key the selected protocol does not read is reported with who reads it,
// without failing the load.
TEST_F(ConfigLoaderWarnings, KeysTheProtocolDoesNotRead) {
  // Who reads `parallel` and `credits`, from the protocols' own key lists.
  const auto& keys = plugins().protocol_keys;
  auto reads = [&](const std::string& protocol, const std::string& key) {
    const auto& k = keys.at(protocol);
    return std::find(k.begin(), k.end(), key) != k.end();
  };
  ASSERT_FALSE(reads("push", "parallel"));
  ASSERT_TRUE(reads("push", "credits"));
  ASSERT_TRUE(reads("pull", "parallel"));
  std::vector<std::string> readers;
  for (const auto& [protocol, k] : keys)
    if (reads(protocol, "parallel")) readers.push_back(protocol);
  const Config c =
      load_config_text("protocol: push\nparallel: 2\ncredits: 3\n", "run.yaml", {}, plugins());
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0], "run.yaml:2:1: parallel: not read by protocol push (read by " +
                               test::joined(readers, ", ") + ")");
  EXPECT_EQ(c.parallel, 2);
  EXPECT_TRUE(load_config_text("protocol: pull\nparallel: 2\n", "run.yaml", {}, plugins())
                  .warnings.empty());
}

}  // namespace
}  // namespace evb
