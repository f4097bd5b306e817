// Every protocol and micro-benchmark runs to its end under the credit
// model's execution (ranks as fibers on a virtual clock, driver credit),
// with zero integrity errors, over a fixed-rate stand-in network
// (support/fixed_rate_network.hpp): the real units and agents, the real
// report and results document.
#include "apps/evbench/credit_ranks.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../config/real_plugins.hpp"
#include "../support/fixed_rate_network.hpp"
#include "apps/evbench/default_config.hpp"
#include "core/config_loader.hpp"
#include "core/topology.hpp"
#include "sim/exec/credit_driver.hpp"

namespace evb {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  int code = -1;
  YAML::Node results;
};

Outcome run_credit(std::vector<std::string> sets, FragmentCpuCost cpu = {}) {
  Plugins plugins;
  register_builtin_plugins(plugins.drivers);
  register_builtin_protocols(plugins.protocols);
  simexec::World* none = nullptr;
  plugins.drivers.add_driver(simexec::credit_driver_factory(&none));
  add_credit_overrides(sets);
  sets.push_back("verify.payload=off");
  const Config config = load_config_text(default_config_yaml(), "configs/default.yaml", sets,
                                         plugin_keys(plugins.drivers, plugins.protocols));
  const Topology topo = make_topology(config);
  std::vector<int> hosts;
  for (int r = 0; r < topo.processes(); ++r) hosts.push_back(r);  // congestors too
  test::FixedRateNetwork net;
  const fs::path json =
      fs::temp_directory_path() / ("credit_ranks_" + std::to_string(::getpid()) + ".json");
  RunOptions options;
  options.quiet = true;
  options.json_path = json.string();
  options.simulated_platform = "fixed-rate test network";
  options.simulation_model = "credit";
  Outcome out;
  out.code = run_credit_ranks(config, plugins, net, hosts, options, cpu);
  if (fs::exists(json)) {
    out.results = YAML::LoadFile(json.string())["results"];
    fs::remove(json);
  }
  return out;
}

class CreditRanks : public ::testing::TestWithParam<std::string> {};

TEST_P(CreditRanks, EventBuildersBuildEveryEventOnce) {
  const Outcome o = run_credit({"protocol=" + GetParam(), "nodes=6", "events=120", "warmup=0s",
                                "fragment.size=32KiB", "ru_buffer=1MiB", "verify.sample=1"});
  ASSERT_EQ(o.code, 0);
  ASSERT_TRUE(o.results);
  EXPECT_EQ(o.results["status"].as<std::string>(), "ok");
  EXPECT_EQ(o.results["events_built"].as<uint64_t>(), 120u);
  EXPECT_EQ(o.results["events_assigned"].as<uint64_t>(), 120u);
  for (const char* k : {"incomplete", "duplicate", "corrupt"})
    EXPECT_EQ(o.results["integrity"][k].as<uint64_t>(), 0u) << k;
  EXPECT_TRUE(o.results["simulated"].as<bool>());
  EXPECT_EQ(o.results["simulation_model"].as<std::string>(), "credit");
  EXPECT_GT(o.results["simulated_time_s"].as<double>(), 0.0);
  // 120 events over 6 BUs: the fewest a BU built at most 20, the most at
  // least 20 (equal without an EVM, whose assignment is static).
  const YAML::Node per_bu = o.results["events_per_bu"];
  ASSERT_TRUE(per_bu) << "no results.events_per_bu";
  EXPECT_GT(per_bu["min"].as<uint64_t>(), 0u);
  EXPECT_LE(per_bu["min"].as<uint64_t>(), 20u);
  EXPECT_GE(per_bu["max"].as<uint64_t>(), 20u);
  EXPECT_LE(per_bu["min_in_window"].as<uint64_t>(), per_bu["min"].as<uint64_t>());
  EXPECT_LE(per_bu["max_in_window"].as<uint64_t>(), per_bu["max"].as<uint64_t>());
  if (GetParam() == "pull-noevm") {
    EXPECT_EQ(per_bu["min"].as<uint64_t>(), 20u);
    EXPECT_EQ(per_bu["max"].as<uint64_t>(), 20u);
  }
}

INSTANTIATE_TEST_SUITE_P(Protocols, CreditRanks, ::testing::Values("pull", "push", "pull-noevm"),
                         [](const auto& p) {
                           std::string n = p.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// Command batches (batch.events 8) travel whole under the credit model: a
// list of 9 x 64 B is longer than the head a data message keeps. Every event
// built once, and the EVM's commands went in fewer messages.
TEST(CreditRanksBatched, BatchesOfEightBuildEveryEventOnce) {
  for (const std::string protocol : {"pull", "push"}) {
    const Outcome o =
        run_credit({"protocol=" + protocol, "nodes=6", "events=120", "warmup=0s",
                    "fragment.size=4KiB", "batch.events=8", "credits=16", "verify.sample=1"});
    ASSERT_EQ(o.code, 0) << protocol;
    EXPECT_EQ(o.results["events_built"].as<uint64_t>(), 120u) << protocol;
    for (const char* k : {"incomplete", "duplicate", "corrupt", "out_of_sync"})
      EXPECT_EQ(o.results["integrity"][k].as<uint64_t>(), 0u) << protocol << " " << k;
    const YAML::Node evm = o.results["cost"]["evm"];
    EXPECT_LT(evm["messages_sent"].as<uint64_t>(), evm["commands_sent"].as<uint64_t>()) << protocol;
  }
}

TEST(CreditRanksWrite, OneSidedWritesBuildEveryEventOnce) {
  const Outcome o = run_credit({"protocol=pull", "data_path=write", "nodes=5", "events=100",
                                "warmup=0s", "fragment.size=16KiB", "ru_buffer=1MiB"});
  ASSERT_EQ(o.code, 0);
  EXPECT_EQ(o.results["events_built"].as<uint64_t>(), 100u);
  EXPECT_EQ(o.results["data_path"].as<std::string>(), "write");
}

// Congestors (background:) beside the event builder under the credit
// model: every pattern, write-incast over the driver's one-sided writes,
// runs to its end with zero integrity errors and reports its entry in
// results.background[] (every byte sent received for the two-sided ones).
class CreditBackground : public ::testing::TestWithParam<std::string> {};

TEST_P(CreditBackground, CongestorsRunAndReport) {
  const Outcome o =
      run_credit({"protocol=pull", "nodes=3", "duration=4ms", "warmup=0s", "fragment.size=32KiB",
                  "ru_buffer=1MiB",
                  "background=[{pattern: " + GetParam() +
                      ", ranks: 3, size: 16KiB, in_flight: 4, start: 1ms, stop: 3ms}]"});
  ASSERT_EQ(o.code, 0);
  ASSERT_TRUE(o.results);
  EXPECT_EQ(o.results["status"].as<std::string>(), "ok");
  EXPECT_GT(o.results["events_built"].as<uint64_t>(), 0u);
  for (const char* k : {"incomplete", "duplicate", "corrupt", "out_of_sync"})
    EXPECT_EQ(o.results["integrity"][k].as<uint64_t>(), 0u) << k;
  const YAML::Node bg = o.results["background"];
  ASSERT_TRUE(bg.IsSequence());
  ASSERT_EQ(bg.size(), 1u);
  EXPECT_EQ(bg[0]["pattern"].as<std::string>(), GetParam());
  EXPECT_EQ(bg[0]["ranks_reported"].as<int>(), 3);
  EXPECT_GT(bg[0]["messages"].as<uint64_t>(), 0u);
  EXPECT_GT(bg[0]["gbps"].as<double>(), 0.0);
  // Sent inside its window, which the builder's run covers.
  EXPECT_GE(bg[0]["start"].as<double>(), 0.001);
  EXPECT_LE(bg[0]["stop"].as<double>(), o.results["simulated_time_s"].as<double>());
  if (GetParam() != "write-incast") {
    EXPECT_EQ(bg[0]["received_bytes"].as<uint64_t>(), bg[0]["bytes"].as<uint64_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(Patterns, CreditBackground,
                         ::testing::Values("incast", "alltoall", "bcast", "one-to-one",
                                           "write-incast"),
                         [](const auto& p) {
                           std::string n = p.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// A per-fragment CPU cost at the RU and BU (a calibration's) that exceeds
// the wire time sets the rate: each host's one CPU does, per N events, the
// N - 1 fragments its RU sends and the N - 1 its BU receives (its own RU's
// fragment is checked in place, no message), so the run builds at most
// N / ((N - 1) (ru + bu)) events per second. (A cost of 0 is the run
// without: SimWorld.FragmentsQueueForTheirHostsCpu.)
TEST(CreditRanksFragmentCpu, ACostAboveTheWireTimeSetsTheRate) {
  const std::vector<std::string> sets = {"protocol=pull", "nodes=4", "events=200", "warmup=0s",
                                         "fragment.size=32KiB"};
  const Outcome free = run_credit(sets);
  ASSERT_EQ(free.code, 0);
  const int64_t ru = 150'000, bu = 250'000;  // ns, each above a 32-KiB fragment's 34 us
  const Outcome slow = run_credit(sets, {ru, bu});
  ASSERT_EQ(slow.code, 0);
  EXPECT_EQ(slow.results["events_built"].as<uint64_t>(), 200u);
  const double bound = 4.0 / (3.0 * static_cast<double>(ru + bu) * 1e-9);  // events/s
  const double rate = slow.results["events_per_second"].as<double>();
  EXPECT_LE(rate, bound * 1.001);
  EXPECT_GE(rate, bound * 0.9);  // the CPUs are the bottleneck, kept busy
  EXPECT_GT(free.results["events_per_second"].as<double>(), 2 * bound);  // not the network
  // A simulated run records no rank CPU of its own (the simulator's is not the cluster's).
  EXPECT_FALSE(slow.results["rank_cpu"].IsDefined());
  EXPECT_FALSE(slow.results["cost"]["ru"]["cpu_us_per_fragment"].IsDefined());
}

class CreditMicro : public ::testing::TestWithParam<std::string> {};

TEST_P(CreditMicro, MicroBenchmarksMoveData) {
  std::vector<std::string> sets = {"protocol=" + GetParam(), "nodes=4",
                                   "duration=2ms",           "warmup=0s",
                                   "fragment.size=64KiB",    "ru_buffer=1MiB"};
  if (GetParam() == "one-to-one") sets.push_back("shift=1");
  const Outcome o = run_credit(sets);
  ASSERT_EQ(o.code, 0);
  ASSERT_TRUE(o.results);
  EXPECT_EQ(o.results["status"].as<std::string>(), "ok");
  for (const char* k : {"duplicate", "corrupt", "out_of_sync"})
    EXPECT_EQ(o.results["integrity"][k].as<uint64_t>(), 0u) << k;
  EXPECT_GT(o.results["bandwidth_gbps"]["aggregate"].as<double>(), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Patterns, CreditMicro,
                         ::testing::Values("one-to-one", "many-to-one", "gather", "gather-cmd",
                                           "gather-cmd-meta", "alltoall"),
                         [](const auto& p) {
                           std::string n = p.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
}  // namespace evb
