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
                  RunOptions options, int64_t message_overhead_ns, bool fitting) {
  const Topology topo = make_topology(config);
  const SimPlacement placement = place_ranks(topo, order, name);
  if (placement.evm_shares_host && !fitting)
    std::fprintf(stderr,
                 "evbench: sim: no host left for the dedicated EVM: it shares node 0's host\n");
  simexec::CreditNetworkAdapter network(platform, platform.network,
                                        simexec::Connections(placement.rank_host).lanes(),
                                        message_overhead_ns);
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
  const int code = run_credit_ranks(config, plugins, network, placement.rank_host, options);
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
    options.network_text = [c = *calibration] { return c.text_line(); };
    options.calibration_json = [c = *calibration](JsonWriter& w) { c.write_json(w); };
  }
  const int64_t overhead_ns = calibration ? std::llround(calibration->message_overhead_s * 1e9) : 0;
  return run_credit_on(config, platform, order, name, plugins, options, overhead_ns);
}

}  // namespace evb
