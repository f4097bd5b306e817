#include "apps/evbench/sim_calibrate.hpp"

#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "apps/evbench/credit_ranks.hpp"
#include "apps/evbench/credit_sim.hpp"
#include "apps/evbench/sim_link_kinds.hpp"
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

// One quiet credit-model run of `config` on `platform` scaled by `c` (its
// per-message overhead added to every message): the per-node rate, the
// median event latency and, for a shift scan, each shift's per-node rate.
struct Simulated {
  SimulatedRun run;
  std::map<int, double> shifts;
};

Simulated simulated_run(const Config& config, const topo::Platform& platform,
                        const std::vector<int>& order, const std::string& name,
                        const Plugins& plugins, const Calibration& c, const std::string& measured) {
  topo::Platform scaled = platform;
  apply_calibration(c, scaled);
  const fs::path json =
      fs::temp_directory_path() / ("evbench-calibrate-" + std::to_string(::getpid()) + ".json");
  RunOptions options;
  options.quiet = true;
  options.json_path = json.string();
  const int code =
      run_credit_on(config, scaled, order, name, plugins, options, host_costs(c), true);
  Simulated out;
  try {
    const YAML::Node r = YAML::LoadFile(json.string())["results"];
    out.run.rate = r["bandwidth_gbps"]["per_node"]["avg"].as<double>();
    // A const node's absent key gives a node that throws on anything but
    // IsDefined().
    if (const YAML::Node l = r["latency_ms"]; l.IsDefined() && l.IsMap() && l["p50"].IsDefined())
      out.run.latency_s = l["p50"].as<double>() / 1e3;
    if (const YAML::Node shifts = r["shifts"]; shifts.IsDefined() && shifts.IsSequence())
      for (const auto& sh : shifts)
        out.shifts[sh["shift"].as<int>()] = sh["per_node"]["avg"].as<double>();
  } catch (const YAML::Exception&) {
    out = Simulated{};
  }
  std::error_code ec;
  fs::remove(json, ec);
  if (code != 0)
    throw Error("calibrate: the simulation of " + measured + "'s run failed (exit " +
                std::to_string(code) + ")");
  return out;
}

// "4-12, 14" for the shifts 4, 5, ..., 12, 14.
std::string shift_ranges(const std::vector<int>& shifts) {
  std::string out;
  for (size_t i = 0; i < shifts.size();) {
    size_t j = i;
    while (j + 1 < shifts.size() && shifts[j + 1] == shifts[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(shifts[i]) +
           (j > i ? "-" + std::to_string(shifts[j]) : "");
    i = j + 1;
  }
  return out;
}

// The first of several runs fits the host links: the model must not say
// the links between switches limit it (they would then take its loss).
void check_host_limited(const Calibration& c, const MeasuredRun& m, const Config& config,
                        const Plugins& plugins, const topo::Platform& platform,
                        const std::vector<int>& order, const std::string& name) {
  Calibration probe = c;
  probe.switch_link_efficiency = c.link_efficiency * kSwitchProbe;
  const double at_e = simulated_run(config, platform, order, name, plugins, c, m.path).run.rate;
  const double probed =
      simulated_run(config, platform, order, name, plugins, probe, m.path).run.rate;
  if (!switch_limited({at_e}, {probed}, kHostRunShare).empty())
    throw ConfigError(m.path + ": the links between switches limit this run, in the model (" +
                      std::to_string(at_e) + " Gb/s per node simulated, " + std::to_string(probed) +
                      " with them " + std::to_string(std::lround((1 - kSwitchProbe) * 100)) +
                      " % slower): give first a run its hosts' own links limit (one leaf)");
}

// A measured rate the switch-link fit may use: a run's per-node rate, or
// one shift of a scan (shift >= 0).
struct RateOf {
  size_t run = 0;
  int shift = -1;
};

// Fits c.switch_link_efficiency to the rates of `runs` the switch links
// limit, the host links at c.link_efficiency (module comment of
// apps/evbench/sim_link_kinds.hpp); records where it came from.
void fit_switch_links(Calibration& c, const std::vector<MeasuredRun>& runs, const SimRequest& req,
                      const Plugins& plugins, const topo::Platform& platform,
                      const std::vector<int>& order, const std::string& name) {
  std::vector<Config> configs;
  std::vector<double> measured;
  std::vector<RateOf> of;
  for (size_t i = 0; i < runs.size(); ++i) {
    configs.push_back(simulated_config(runs[i], plugins));
    if (runs[i].shifts.empty()) {
      measured.push_back(runs[i].per_node_gbps);
      of.push_back({i, -1});
    }
    for (const auto& sh : runs[i].shifts) {
      measured.push_back(sh.per_node_gbps);
      of.push_back({i, sh.shift});
    }
  }
  const auto simulate = [&](double s) {
    Calibration at = c;
    at.switch_link_efficiency = s;
    std::vector<double> rates;
    for (size_t i = 0; i < runs.size(); ++i) {
      const Simulated sim =
          simulated_run(configs[i], platform, order, name, plugins, at, runs[i].path);
      for (const RateOf& r : of) {
        if (r.run != i) continue;
        const auto found = sim.shifts.find(r.shift);
        rates.push_back(r.shift < 0 ? sim.run.rate : found == sim.shifts.end() ? 0 : found->second);
      }
      if (!req.quiet)
        std::fprintf(stderr,
                     "evbench: sim: calibrate: switch links %.4f: %s: %.6g Gb/s per node "
                     "simulated, %.6g measured\n",
                     s, runs[i].path.c_str(), sim.run.rate, runs[i].per_node_gbps);
    }
    return rates;
  };
  std::vector<std::string> files;
  for (const auto& r : runs) files.push_back(r.path);
  const SwitchLinkFit fit = fit_switch_link_efficiency(measured, simulate);
  if (fit.used.empty())
    throw ConfigError(comma_list(files) +
                      ": no rate the links between switches limit, in the model (with them " +
                      std::to_string(std::lround((1 - kSwitchProbe) * 100)) +
                      " % slower none fell in proportion): give a run whose rate the uplinks "
                      "limit, such as a one-to-one shift scan across leaves");
  std::vector<std::string> used_files, used_rates;
  for (size_t i = 0; i < runs.size(); ++i) {
    std::vector<int> shifts;
    bool whole = false;
    for (size_t u : fit.used)
      if (of[u].run == i) {
        if (of[u].shift < 0)
          whole = true;
        else
          shifts.push_back(of[u].shift);
      }
    if (!whole && shifts.empty()) continue;
    used_files.push_back(runs[i].path);
    used_rates.push_back(whole ? "per node" : "shifts " + shift_ranges(shifts));
    c.switch_from.config += (c.switch_from.config.empty() ? "" : "; ") + runs[i].summary();
  }
  c.switch_link_efficiency = fit.efficiency;
  c.switch_from.file = comma_list(used_files);
  // One entry per file, in the files' order.
  for (const auto& r : used_rates)
    c.switch_from.rates += (c.switch_from.rates.empty() ? "" : "; ") + r;
  c.switch_from.measured_gbps = fit.measured;
  c.switch_from.uncalibrated_gbps = fit.first;
  c.switch_from.calibrated_gbps = fit.last;
  c.switch_from.iterations = fit.simulations;
}

}  // namespace

HostCosts host_costs(const Calibration& c) {
  HostCosts h;
  h.message_overhead_ns = std::llround(c.message_overhead_s * 1e9);
  h.fragment_cpu.ru_ns = std::llround(c.ru_fragment_cpu_s * 1e9);
  h.fragment_cpu.bu_ns = std::llround(c.bu_fragment_cpu_s * 1e9);
  return h;
}

Calibration calibrate_credit(const Config& config, const SimRequest& req, const Plugins& plugins,
                             const topo::Platform& platform, const std::vector<int>& order,
                             const std::string& name) {
  const MeasuredRun m = read_measured_run(req.calibrate.front());
  if (m.protocol != config.protocol)
    throw ConfigError(m.path + ": config.protocol: '" + m.protocol +
                      "', but the run to predict is '" + config.protocol +
                      "': calibrate from a run of the same protocol");
  const Config measured_config = simulated_config(m, plugins);
  const FragmentCpuFit cpu = fragment_cpu_of(m);
  const auto simulate = [&](double efficiency, double overhead_s) {
    Calibration at;
    at.link_efficiency = efficiency;
    at.message_overhead_s = overhead_s;
    at.ru_fragment_cpu_s = cpu.ru_s;
    at.bu_fragment_cpu_s = cpu.bu_s;
    const SimulatedRun run =
        simulated_run(measured_config, platform, order, name, plugins, at, m.path).run;
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
  c.ru_fragment_cpu_s = cpu.ru_s;
  c.bu_fragment_cpu_s = cpu.bu_s;
  c.fragment_cpu_from = cpu.from;
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
  if (req.calibrate.size() > 1) {
    check_host_limited(c, m, measured_config, plugins, platform, order, name);
    std::vector<MeasuredRun> others;
    for (size_t i = 1; i < req.calibrate.size(); ++i)
      others.push_back(read_measured_run(req.calibrate[i], true));
    fit_switch_links(c, others, req, plugins, platform, order, name);
  }
  c.overlay = req.calibration.empty() ? kDefaultCalibrationFile : req.calibration;
  std::ofstream out(c.overlay);
  out << c.overlay_yaml();
  if (!out.flush()) throw Error("sim: cannot write the calibration overlay " + c.overlay);
  if (!req.quiet)
    std::fprintf(stderr, "evbench: sim: calibration written to %s (link efficiency %.4f%s)\n",
                 c.overlay.c_str(), c.link_efficiency,
                 c.switch_link_efficiency > 0
                     ? (", switch links " + std::to_string(c.switch_link_efficiency)).c_str()
                     : "");
  return c;
}

}  // namespace evb
