// Calibration of `evbench sim --model credit` to a measured run
// (apps/evbench/sim_calibration.hpp, sim_measured.hpp): the fit converges
// on the rate it is given and stops where it must; the overlay file reads
// back what was written; links are scaled by the efficiency; and every
// kind of bad measured input is refused naming the file and the key.
#include "apps/evbench/sim_calibration.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <string>

#include "apps/evbench/sim_measured.hpp"
#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "support/source_dir.hpp"
#include "topo/platform_loader.hpp"

namespace evb {
namespace {

// A results document as evbench run writes it, reduced to what the fit
// reads; `results` is spliced in as given.
std::string document(const std::string& protocol, const std::string& results) {
  return R"({"schema_version": 1, "tool": "evbench", "argv": ["evbench", "run"],
  "config": {"nodes": 4, "protocol": ")" +
         protocol +
         R"(", "scheduling": "barrel", "fragment": {"size": 524288},
             "driver": "tcp", "driver_options": {"nodelay": "true"}, "bootstrap": "env",
             "poll_mode": "block", "duration": 10},
  "versions": {"git_sha": "abc123"},
  "results": )" +
         results + "}";
}

const char* const kGoodResults =
    R"({"status": "ok", "builds_events": true, "events_built": 290,
        "events_per_second": 28.25, "latency_ms": {"p50": 223.5},
        "bandwidth_gbps": {"per_node": {"min": 0.10, "avg": 0.1185, "max": 0.14}},
        "host_load": [{"hostname": "evb-h0"}, {"hostname": "evb-h1"}, {"ranks": [2]}]})";

std::string error_of(const std::string& text) {
  try {
    parse_measured_run(text, "m.json");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(SimCalibrationFit, LinearModelConvergesOnTheMeasuredRate) {
  // A network-bound run: the simulated rate is proportional to the links.
  const double line = 0.1667;
  const double measured = 0.1185;
  const FitResult fit = fit_link_efficiency(measured, [&](double e) { return line * e; });
  EXPECT_NEAR(fit.efficiency, measured / line, 1e-9);
  EXPECT_DOUBLE_EQ(fit.first, line);
  EXPECT_NEAR(fit.last, measured, measured * 0.01);
  EXPECT_EQ(fit.iterations, 2);  // one to see the gap, one to confirm
}

TEST(SimCalibrationFit, SublinearModelIteratesWithinTolerance) {
  // Part of the run's time does not scale with the links (latency): the
  // first rescaling undershoots and the fit goes on.
  const auto simulate = [](double e) { return 1.0 / (1.0 / (0.2 * e) + 2.0); };
  const double measured = 0.1;
  const FitResult fit = fit_link_efficiency(measured, simulate, 0.001, 20);
  EXPECT_GT(fit.iterations, 2);
  EXPECT_NEAR(simulate(fit.efficiency), measured, measured * 0.001);
  EXPECT_NEAR(fit.last, simulate(fit.efficiency), 1e-12);
}

TEST(SimCalibrationFit, StopsAfterMaxIterations) {
  int calls = 0;
  const auto simulate = [&](double e) {
    ++calls;
    return 1.0 / (1.0 / e + 5.0);
  };
  const FitResult fit = fit_link_efficiency(0.1, simulate, 1e-12, 3);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(fit.iterations, 3);
}

TEST(SimCalibrationFit, RefusesARunNothingLikeTheSimulation) {
  // Measured 100x above what the links allow: no host stack does that.
  EXPECT_THROW(fit_link_efficiency(10.0, [](double e) { return 0.1 * e; }), Error);
  EXPECT_THROW(fit_link_efficiency(0.1, [](double) { return 0.0; }), Error);
  EXPECT_THROW(fit_link_efficiency(0.0, [](double e) { return e; }), ConfigError);
}

// A stand-in for the simulation of a PULL run: the links move `line * e`,
// and every event's cycle carries `k` messages' overhead outside the
// transfer, which the latency partly sees.
struct ToyRun {
  double line = 0.1667;
  double transfer_s = 0.19;  // median latency at e = 1, o = 0
  SimulatedRun operator()(double e, double o) const {
    const double busy = transfer_s / e;  // the transfer slows with the links
    const double cycle = busy + 2 * o;   // two commands per event outside it
    return {line * e * busy / cycle, busy + o};
  }
};

TEST(SimCalibrationFit, FindsTheOverheadThatGivesTheMeasuredLatency) {
  const ToyRun toy;
  const SimulatedRun truth = toy(0.8, 0.03);  // the "measured" run
  const CalibrationFit fit = fit_calibration(truth.rate, truth.latency_s, toy, 0.001, 10);
  // Within what the efficiency's 1 % rate tolerance leaves of the curve.
  EXPECT_NEAR(fit.efficiency, 0.8, 0.02);
  EXPECT_NEAR(fit.overhead_s, 0.03, 0.005);
  EXPECT_NEAR(fit.last.latency_s, truth.latency_s, truth.latency_s * 0.01);
  EXPECT_NEAR(fit.last.rate, truth.rate, truth.rate * 0.011);
  EXPECT_DOUBLE_EQ(fit.first.rate, toy.line);
  EXPECT_GT(fit.simulations, 2);
}

TEST(SimCalibrationFit, NoOverheadWhenTheLatencyNeedsNone) {
  const ToyRun toy;
  const SimulatedRun truth = toy(0.7, 0);
  const CalibrationFit fit = fit_calibration(truth.rate, truth.latency_s, toy, 0.01, 10);
  EXPECT_NEAR(fit.efficiency, 0.7, 0.01);
  EXPECT_LT(fit.overhead_s, 0.002);
  // Without a measured latency only the efficiency is fitted.
  const CalibrationFit rate_only = fit_calibration(truth.rate, 0, toy);
  EXPECT_EQ(rate_only.overhead_s, 0);
  EXPECT_NEAR(rate_only.efficiency, 0.7, 0.01);
}

TEST(SimCalibrationFit, NoOverheadWhenTheDelayShortensTheLatency) {
  // A simulation in which a per-message delay, at the same links, makes the
  // median latency shorter (it reorders events): not a host's cost, so the
  // fit keeps 0 however far the measured latency is from the point at 0.
  const ToyRun toy;
  int at_zero = 0;
  const auto shortening = [&](double e, double o) {
    if (o == 0) ++at_zero;
    SimulatedRun r = toy(e, 0);
    r.latency_s -= o / 2;
    return r;
  };
  const SimulatedRun links = toy(0.8, 0);
  const CalibrationFit fit = fit_calibration(links.rate, links.latency_s / 2, shortening, 0.01, 10);
  EXPECT_EQ(fit.overhead_s, 0);
  EXPECT_NEAR(fit.efficiency, 0.8, 0.01);
  EXPECT_NEAR(fit.last.latency_s, links.latency_s, links.latency_s * 0.02);
  // The points at 0: the efficiency's fit, and the one check at the step's
  // efficiency.
  EXPECT_GE(at_zero, 2);
  EXPECT_GT(fit.simulations, at_zero);
}

TEST(SimCalibrationOverlay, ReadsBackWhatItWrote) {
  Calibration c;
  c.link_efficiency = 0.7109;
  c.message_overhead_s = 0.0213;
  c.measured_latency_ms = 223.5;
  c.platform = "docs/p.yaml";
  c.from_file = "measured: \"4\".json";  // quoting survives
  c.from_config = "pull, 4 nodes, barrel, fragment 524288 B, driver tcp";
  c.from_hosts = "evb-h0, evb-h1";
  c.from_git_sha = "abc123";
  c.measured_gbps = 0.1185;
  c.uncalibrated_gbps = 0.1667;
  c.calibrated_gbps = 0.1184;
  c.iterations = 2;
  c.ru_fragment_cpu_s = 61.5e-6;
  c.bu_fragment_cpu_s = 58.25e-6;
  c.fragment_cpu_from = "results.cost.ru / .bu cpu_us_per_fragment of m.json: ...";
  const Calibration back = parse_calibration(c.overlay_yaml(), "cal.yaml");
  EXPECT_DOUBLE_EQ(back.link_efficiency, 0.7109);
  EXPECT_DOUBLE_EQ(back.message_overhead_s, 0.0213);
  EXPECT_DOUBLE_EQ(back.measured_latency_ms, 223.5);
  EXPECT_EQ(back.platform, c.platform);
  EXPECT_EQ(back.from_file, c.from_file);
  EXPECT_EQ(back.from_config, c.from_config);
  EXPECT_EQ(back.from_hosts, c.from_hosts);
  EXPECT_EQ(back.from_git_sha, c.from_git_sha);
  EXPECT_DOUBLE_EQ(back.measured_gbps, 0.1185);
  EXPECT_DOUBLE_EQ(back.uncalibrated_gbps, 0.1667);
  EXPECT_EQ(back.iterations, 2);
  EXPECT_EQ(back.overlay, "cal.yaml");
  EXPECT_DOUBLE_EQ(back.ru_fragment_cpu_s, 61.5e-6);
  EXPECT_DOUBLE_EQ(back.bu_fragment_cpu_s, 58.25e-6);
  EXPECT_EQ(back.fragment_cpu_from, c.fragment_cpu_from);
}

// An overlay written before the CPU per fragment was fitted says so in
// text: it reads as 0; beside a value it is a contradiction.
TEST(SimCalibrationOverlay, AnOlderOverlaysNotFittedTextReadsAsZero) {
  const std::string head = "calibration:\n  link_efficiency: 0.74\n";
  const std::string old =
      "  ru_fragment_cpu: \"not fitted: ...\"\n  bu_fragment_cpu: \"not fitted\"\n";
  const Calibration c = parse_calibration(head + old, "old.yaml");
  EXPECT_EQ(c.ru_fragment_cpu_s, 0);
  EXPECT_EQ(c.bu_fragment_cpu_s, 0);
  EXPECT_FALSE(c.has_fragment_cpu());
  try {
    parse_calibration(head + old + "  ru_fragment_cpu_s: 1e-5\n", "both.yaml");
    FAIL() << "both accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("both.yaml: calibration.ru_fragment_cpu_s: and "
                                         "calibration.ru_fragment_cpu"),
              std::string::npos)
        << e.what();
  }
}

// results.calibration names the CPU per fragment among the calibrated
// parameters when it was charged, and says so when the protocol has no RU
// or BU to charge.
TEST(SimCalibrationOverlay, ResultsSayWhetherTheCpuWasCharged) {
  Calibration c;
  c.link_efficiency = 0.75;
  c.ru_fragment_cpu_s = 2e-4;
  c.bu_fragment_cpu_s = 1e-4;
  c.fragment_cpu_from = "from m.json";
  const auto json = [&](bool charged) {
    JsonWriter w;
    w.begin_object();
    c.write_json(w, charged);
    w.end_object();
    return w.str();
  };
  const YAML::Node used = YAML::Load(json(true));
  ASSERT_EQ(used["calibrated"].size(), 4u);
  EXPECT_EQ(used["calibrated"][2].as<std::string>(), "ru_fragment_cpu_s");
  EXPECT_EQ(used["calibrated"][3].as<std::string>(), "bu_fragment_cpu_s");
  EXPECT_DOUBLE_EQ(used["ru_fragment_cpu_s"].as<double>(), 2e-4);
  EXPECT_TRUE(used["fragment_cpu_charged"].as<bool>());
  EXPECT_EQ(used["fragment_cpu_from"].as<std::string>(), "from m.json");
  const YAML::Node unused = YAML::Load(json(false));
  EXPECT_EQ(unused["calibrated"].size(), 2u);
  EXPECT_FALSE(unused["fragment_cpu_charged"].as<bool>());
  EXPECT_NE(unused["fragment_cpu_note"].as<std::string>().find("has neither"), std::string::npos);
  EXPECT_NE(c.text_line(true).find("CPU per fragment RU 200 us, BU 100 us ("), std::string::npos)
      << c.text_line(true);
  EXPECT_NE(c.text_line(false).find("not charged"), std::string::npos);
  // Written by hand: no measured run to name.
  EXPECT_NE(c.text_line(true).find("no measured run named"), std::string::npos);
}

TEST(SimCalibrationOverlay, BadOverlaysNameTheKey) {
  auto error = [](const std::string& text) {
    try {
      parse_calibration(text, "cal.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("platform: x\n").find("cal.yaml: calibration: missing"), std::string::npos);
  EXPECT_NE(error("calibration: {model: credit}\n").find("calibration.link_efficiency: missing"),
            std::string::npos);
  EXPECT_NE(error("calibration: {link_efficiency: 7}\n").find("calibration.link_efficiency: 7"),
            std::string::npos);
  EXPECT_NE(error("calibration: {link_efficiency: 1, per_message_overhead_s: -1}\n")
                .find("calibration.per_message_overhead_s: -1"),
            std::string::npos);
  EXPECT_NE(error("calibration: {link_efficiency: fast}\n")
                .find("cal.yaml: calibration.link_efficiency: 'fast' is not a number"),
            std::string::npos);
}

TEST(SimCalibrationOverlay, ScalesEveryLink) {
  topo::Platform p = topo::load_platform_text(
      "name: t\nswitches: [s]\nhosts:\n  - {name: a, switch: s, port: 1}\n"
      "  - {name: b, switch: s, port: 2}\nrouting: shortest\n"
      "links:\n  host: {bandwidth: 100Gbit/s, latency: 100ns}\n"
      "  switch: {bandwidth: 100Gbit/s, latency: 100ns}\n",
      "t.yaml");
  ASSERT_FALSE(p.links.empty());
  std::vector<double> before;
  for (const auto& l : p.links) before.push_back(l.bandwidth);
  Calibration c;
  c.link_efficiency = 0.5;
  apply_calibration(c, p);
  for (size_t i = 0; i < p.links.size(); ++i) {
    EXPECT_DOUBLE_EQ(p.links[i].bandwidth, before[i] * 0.5);
    EXPECT_DOUBLE_EQ(p.links[i].latency, 100e-9);
  }
}

TEST(SimMeasuredRun, ReadsWhatTheFitNeeds) {
  const MeasuredRun m = parse_measured_run(document("pull", kGoodResults), "m.json");
  EXPECT_EQ(m.path, "m.json");
  EXPECT_EQ(m.protocol, "pull");
  EXPECT_EQ(m.nodes, 4);
  EXPECT_EQ(m.events_built, 290u);
  EXPECT_DOUBLE_EQ(m.per_node_gbps, 0.1185);
  EXPECT_DOUBLE_EQ(m.latency_p50_ms, 223.5);
  EXPECT_EQ(m.git_sha, "abc123");
  EXPECT_EQ(m.hosts, (std::vector<std::string>{"evb-h0", "evb-h1"}));
  EXPECT_EQ(m.summary(), "pull, 4 nodes, barrel, fragment 524288 B, driver tcp");
  // How it ran is left to the simulation; what it ran is kept.
  EXPECT_EQ(m.config_yaml.find("driver"), std::string::npos);
  EXPECT_EQ(m.config_yaml.find("bootstrap"), std::string::npos);
  EXPECT_EQ(m.config_yaml.find("poll_mode"), std::string::npos);
  EXPECT_NE(m.config_yaml.find("protocol: pull"), std::string::npos);
  EXPECT_NE(m.config_yaml.find("nodes: 4"), std::string::npos);
}

TEST(SimMeasuredRun, BadInputNamesTheFileAndTheKey) {
  EXPECT_NE(error_of("{not json").find("m.json: not a results JSON"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("m.json: results: missing"), std::string::npos);
  EXPECT_NE(error_of(R"({"tool": "evbench", "config": {}})").find("m.json: results: missing"),
            std::string::npos);
  // One key of a good document changed at a time: what the error must say.
  struct Case {
    const char* protocol;
    const char* from;
    const char* to;
    const char* error;
  };
  const Case cases[] = {
      {"pull", "\"events_built\": 290", "\"events_built\": 0", "results.events_built: 0"},
      {"one-to-one", "\"builds_events\": true", "\"builds_events\": false",
       "results.builds_events: false"},
      {"pull", "\"status\"", "\"simulated\": true, \"status\"", "results.simulated"},
      {"pull", "\"avg\": 0.1185", "\"avg\": 0", "results.bandwidth_gbps.per_node.avg"},
      {"pull", "\"events_per_second\"", "\"events_per_sec\"", "results.events_per_second: missing"},
  };
  for (const Case& c : cases) {
    std::string r = kGoodResults;
    r.replace(r.find(c.from), std::string(c.from).size(), c.to);
    EXPECT_NE(error_of(document(c.protocol, r)).find(std::string("m.json: ") + c.error),
              std::string::npos)
        << c.error;
  }
  // Another tool's document.
  std::string other = document("pull", kGoodResults);
  other.replace(other.find("\"tool\": \"evbench\""), 17, "\"tool\": \"iperf3\"");
  EXPECT_NE(error_of(other).find("m.json: tool: 'iperf3'"), std::string::npos);
}

// A real run's results (tests/data/measured-4-pull-tcp.json: `evbench run`
// of 4-node PULL over tcp on the development VM, the command in
// tests/data/README.md): the CPU per fragment its RU and BU ranks recorded
// is what the calibration charges, named with where it came from.
TEST(SimMeasuredRun, RecordedRunGivesItsCpuPerFragment) {
  const std::string path = std::string(EVBENCH_SOURCE_DIR) + "/tests/data/measured-4-pull-tcp.json";
  const MeasuredRun m = read_measured_run(path);
  const YAML::Node cost = YAML::LoadFile(path)["results"]["cost"];
  const double ru_us = cost["ru"]["cpu_us_per_fragment"].as<double>();
  const double bu_us = cost["bu"]["cpu_us_per_fragment"].as<double>();
  ASSERT_GT(ru_us, 0);
  ASSERT_GT(bu_us, 0);
  EXPECT_DOUBLE_EQ(m.ru_fragment_cpu_s, ru_us * 1e-6);
  EXPECT_DOUBLE_EQ(m.bu_fragment_cpu_s, bu_us * 1e-6);
  EXPECT_EQ(m.ru_cpu_fragments, cost["ru"]["cpu_fragments"].as<uint64_t>());
  EXPECT_GT(m.ru_cpu_fragments, 0u);
  EXPECT_TRUE(m.cpu_shared);  // layout rubu: one process per node
  const FragmentCpuFit fit = fragment_cpu_of(m);
  EXPECT_DOUBLE_EQ(fit.ru_s, m.ru_fragment_cpu_s);
  EXPECT_DOUBLE_EQ(fit.bu_s, m.bu_fragment_cpu_s);
  EXPECT_NE(fit.from.find("results.cost.ru / .bu cpu_us_per_fragment of " + path + ": RU "),
            std::string::npos)
      << fit.from;
  EXPECT_NE(fit.from.find("over " + std::to_string(m.ru_cpu_fragments) + " fragments sent"),
            std::string::npos)
      << fit.from;
  EXPECT_NE(fit.from.find("split by fragments"), std::string::npos) << fit.from;
  // Written into the overlay and read back as it was.
  Calibration c;
  c.link_efficiency = 1;
  c.ru_fragment_cpu_s = fit.ru_s;
  c.bu_fragment_cpu_s = fit.bu_s;
  c.fragment_cpu_from = fit.from;
  const Calibration back = parse_calibration(c.overlay_yaml(), "cal.yaml");
  EXPECT_NEAR(back.ru_fragment_cpu_s / fit.ru_s, 1, 1e-5);  // 6 significant digits
  EXPECT_EQ(back.fragment_cpu_from, fit.from);
}

// A run from before the CPU was recorded gives 0, saying so.
TEST(SimMeasuredRun, UnrecordedCpuIsZeroAndSaysWhy) {
  const MeasuredRun m = parse_measured_run(document("pull", kGoodResults), "old.json");
  EXPECT_LT(m.ru_fragment_cpu_s, 0);
  const FragmentCpuFit fit = fragment_cpu_of(m);
  EXPECT_EQ(fit.ru_s, 0);
  EXPECT_EQ(fit.bu_s, 0);
  EXPECT_NE(fit.from.find("not recorded in old.json"), std::string::npos) << fit.from;
}

TEST(SimMeasuredRun, MissingFileIsNamed) {
  try {
    read_measured_run("/nonexistent/measured.json");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/measured.json"), std::string::npos);
  }
}

}  // namespace
}  // namespace evb
