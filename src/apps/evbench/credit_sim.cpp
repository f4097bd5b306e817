#include "apps/evbench/credit_sim.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

#include "apps/evbench/credit_network_report.hpp"
#include "apps/evbench/credit_ranks.hpp"
#include "apps/evbench/sim_calibrate.hpp"
#include "apps/evbench/sim_calibration.hpp"
#include "apps/evbench/sim_platform.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/topology.hpp"
#include "sim/exec/connections.hpp"
#include "sim/exec/credit_network_adapter.hpp"
#include "topo/platform_loader.hpp"

namespace evb {

int run_credit_on(const Config& config, const topo::Platform& platform,
                  const std::vector<int>& order, const std::string& name, const Plugins& plugins,
                  RunOptions options, const HostCosts& costs, bool fitting) {
  const Topology topo = make_topology(config);
  const SimPlacement placement = place_ranks(topo, order, name);
  if (placement.evm_shares_host && !fitting)
    std::fprintf(stderr,
                 "evbench: sim: no host left for the dedicated EVM: it shares node 0's host\n");
  simexec::CreditNetworkAdapter network(platform, platform.network,
                                        simexec::Connections(placement.rank_host).lanes(),
                                        costs.message_overhead_ns);
  FragmentCpuCost cpu = costs.fragment_cpu;
  if ((cpu.ru_ns > 0 || cpu.bu_ns > 0) && !plugins.protocols.of(config).builds_events) {
    if (!fitting && !options.quiet)
      std::fprintf(stderr,
                   "evbench: sim: the calibration's CPU per fragment is not charged: protocol %s "
                   "has no RU or BU (results.calibration.fragment_cpu_charged: false)\n",
                   config.protocol.c_str());
    cpu = {};
  }
  options.fragment_cpu_charged = cpu.ru_ns > 0 || cpu.bu_ns > 0;
  options.simulated_platform = name;
  options.simulation_model = "credit";
  const std::function<std::string()> before = options.network_text;
  const auto wall_s = [start = options.wall_start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  options.network_text = [&] {
    return (before ? before() : std::string()) +
           credit_network_text(platform, network.network(), now_ns(), wall_s());
  };
  options.network_json = [&](JsonWriter& w) {
    write_credit_network(w, platform, network.network(), now_ns(), wall_s());
  };
  const int code = run_credit_ranks(config, plugins, network, placement.rank_host, options, cpu);
  if (!options.quiet)
    std::fprintf(stderr, "evbench: sim: credit model: %llu network events, %llu messages\n",
                 static_cast<unsigned long long>(network.events()),
                 static_cast<unsigned long long>(network.messages()));
  return code;
}

int run_sim_credit(const Config& config, const SimRequest& req, const Plugins& plugins) {
  if (req.platform.empty()) throw UsageError("sim: --platform FILE is required");
  if (config.monitor.port != 0)
    throw ConfigError(
        "monitor.port: sim --model credit has no live monitor (its clock is "
        "virtual); drop the key");
  if (config.poll_mode != PollMode::block)
    throw ConfigError(
        "poll_mode: sim --model credit needs block (a rank that polls without "
        "waiting holds the virtual clock); drop the key or set it block");
  topo::Platform platform = topo::load_platform(req.platform);
  std::vector<int> order;
  if (req.order.empty()) {
    for (int h = 0; h < platform.host_count(); ++h) order.push_back(h);
  } else {
    order = topo::load_order(platform, req.order);
  }
  const std::string name = req.platform + (req.order.empty() ? "" : " (order " + req.order + ")");
  std::optional<Calibration> calibration;
  if (!req.calibrate.empty()) {
    calibration = calibrate_credit(config, req, plugins, platform, order, name);
  } else if (!req.calibration.empty()) {
    calibration = load_calibration(req.calibration);
  }
  RunOptions options;
  options.json_path = req.json;
  options.quiet = req.quiet;
  options.argv = req.argv;
  if (calibration) {
    apply_calibration(*calibration, platform);
    const bool charged = plugins.protocols.of(config).builds_events;
    options.network_text = [c = *calibration, charged] { return c.text_line(charged); };
    options.calibration_json = [c = *calibration, charged](JsonWriter& w) {
      c.write_json(w, charged);
    };
  }
  return run_credit_on(config, platform, order, name, plugins, options,
                       calibration ? host_costs(*calibration) : HostCosts{});
}

}  // namespace evb
