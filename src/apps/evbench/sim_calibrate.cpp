#include "apps/evbench/sim_calibrate.hpp"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

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

std::string joined(const std::vector<std::string>& words) {
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

// The per-node rate of one quiet credit-model run of `config` with every
// link at `efficiency` of its bandwidth.
double simulated_rate(const Config& config, const topo::Platform& platform,
                      const std::vector<int>& order, const std::string& name,
                      const Plugins& plugins, double efficiency, const std::string& measured) {
  topo::Platform scaled = platform;
  Calibration c;
  c.link_efficiency = efficiency;
  apply_calibration(c, scaled);
  const fs::path json =
      fs::temp_directory_path() / ("evbench-calibrate-" + std::to_string(::getpid()) + ".json");
  RunOptions options;
  options.quiet = true;
  options.json_path = json.string();
  const int code = run_credit_on(config, scaled, order, name, plugins, options);
  double rate = 0;
  try {
    rate =
        YAML::LoadFile(json.string())["results"]["bandwidth_gbps"]["per_node"]["avg"].as<double>();
  } catch (const YAML::Exception&) {
    rate = 0;
  }
  std::error_code ec;
  fs::remove(json, ec);
  if (code != 0)
    throw Error("calibrate: the simulation of " + measured + "'s run failed (exit " +
                std::to_string(code) + ")");
  return rate;
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
  const auto simulate = [&](double efficiency) {
    const double rate =
        simulated_rate(measured_config, platform, order, name, plugins, efficiency, m.path);
    if (!req.quiet)
      std::fprintf(stderr,
                   "evbench: sim: calibrate: link efficiency %.4f: %.6g Gb/s per node simulated, "
                   "%.6g measured\n",
                   efficiency, rate, m.per_node_gbps);
    return rate;
  };
  const FitResult fit = fit_link_efficiency(m.per_node_gbps, simulate);
  Calibration c;
  c.link_efficiency = fit.efficiency;
  c.platform = req.platform;
  c.from_file = m.path;
  c.from_config = m.summary();
  c.from_hosts = m.hosts.empty() ? "not recorded" : joined(m.hosts);
  c.from_git_sha = m.git_sha;
  c.measured_gbps = m.per_node_gbps;
  c.uncalibrated_gbps = fit.first;
  c.calibrated_gbps = fit.last;
  c.iterations = fit.iterations;
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
