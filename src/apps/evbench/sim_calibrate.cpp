#include "apps/evbench/sim_calibrate.hpp"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "apps/evbench/credit_ranks.hpp"
#include "apps/evbench/credit_sim.hpp"
#include "apps/evbench/sim_measured.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"

namespace evb {
namespace {

namespace fs = std::filesystem;

std::string comma_list(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// The measured run's configuration as the credit model runs it: what sim
// --model credit sets for every run, and no monitor.
Config simulated_config(const MeasuredRun& m, const Plugins& plugins) {
  std::vector<std::string> sets;
  add_credit_overrides(sets);
  sets.push_back("monitor.port=0");
  const PluginKeys keys = plugin_keys(plugins.drivers, plugins.protocols);
  const Config asked = load_config_text(m.config_yaml, m.path, sets, keys);
  add_sim_common_overrides(sets, asked, plugins.protocols.of(asked));
  return load_config_text(m.config_yaml, m.path, sets, keys);
}

// The per-node rate and median event latency of one quiet credit-model run
// of `config` with every link at `efficiency` of its bandwidth and
// `overhead_s` added to every message.
SimulatedRun simulated_run(const Config& config, const topo::Platform& platform,
                           const std::vector<int>& order, const std::string& name,
                           const Plugins& plugins, double efficiency, double overhead_s,
                           const std::string& measured) {
  topo::Platform scaled = platform;
  Calibration c;
  c.link_efficiency = efficiency;
  apply_calibration(c, scaled);
  const fs::path json =
      fs::temp_directory_path() / ("evbench-calibrate-" + std::to_string(::getpid()) + ".json");
  RunOptions options;
  options.quiet = true;
  options.json_path = json.string();
  const int code = run_credit_on(config, scaled, order, name, plugins, options,
                                 std::llround(overhead_s * 1e9), true);
  SimulatedRun run;
  try {
    const YAML::Node r = YAML::LoadFile(json.string())["results"];
    run.rate = r["bandwidth_gbps"]["per_node"]["avg"].as<double>();
    run.latency_s = r["latency_ms"]["p50"].as<double>() / 1e3;
  } catch (const YAML::Exception&) {
    run = SimulatedRun{};
  }
  std::error_code ec;
  fs::remove(json, ec);
  if (code != 0)
    throw Error("calibrate: the simulation of " + measured + "'s run failed (exit " +
                std::to_string(code) + ")");
  return run;
}

}  // namespace

Calibration calibrate_credit(const Config& config, const SimRequest& req, const Plugins& plugins,
                             const topo::Platform& platform, const std::vector<int>& order,
                             const std::string& name) {
  const MeasuredRun m = read_measured_run(req.calibrate);
  if (m.protocol != config.protocol)
    throw ConfigError(req.calibrate + ": config.protocol: '" + m.protocol +
                      "', but the run to predict is '" + config.protocol +
                      "': calibrate from a run of the same protocol");
  const Config measured_config = simulated_config(m, plugins);
  const auto simulate = [&](double efficiency, double overhead_s) {
    const SimulatedRun run = simulated_run(measured_config, platform, order, name, plugins,
                                           efficiency, overhead_s, m.path);
    if (!req.quiet)
      std::fprintf(stderr,
                   "evbench: sim: calibrate: link efficiency %.4f, per-message overhead %.3g ms: "
                   "%.6g Gb/s per node and p50 latency %.4g ms simulated, %.6g and %.4g "
                   "measured\n",
                   efficiency, overhead_s * 1e3, run.rate, run.latency_s * 1e3, m.per_node_gbps,
                   m.latency_p50_ms);
    return run;
  };
  const CalibrationFit fit = fit_calibration(m.per_node_gbps, m.latency_p50_ms / 1e3, simulate);
  Calibration c;
  c.link_efficiency = fit.efficiency;
  c.message_overhead_s = fit.overhead_s;
  c.measured_latency_ms = m.latency_p50_ms;
  c.platform = req.platform;
  c.from_file = m.path;
  c.from_config = m.summary();
  c.from_hosts = m.hosts.empty() ? "not recorded" : comma_list(m.hosts);
  c.from_git_sha = m.git_sha;
  c.measured_gbps = m.per_node_gbps;
  c.uncalibrated_gbps = fit.first.rate;
  c.calibrated_gbps = fit.last.rate;
  c.iterations = fit.simulations;
  c.overlay = req.calibration.empty() ? kDefaultCalibrationFile : req.calibration;
  std::ofstream out(c.overlay);
  out << c.overlay_yaml();
  if (!out.flush()) throw Error("sim: cannot write the calibration overlay " + c.overlay);
  if (!req.quiet)
    std::fprintf(stderr, "evbench: sim: calibration written to %s (link efficiency %.4f)\n",
                 c.overlay.c_str(), c.link_efficiency);
  return c;
}

}  // namespace evb
