// Filling Config::topology.ring from the platform model.
#include "apps/evbench/topology_ring.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "topo/order_search.hpp"
#include "topo/platform_loader.hpp"

namespace evb {

std::vector<int> node_hosts(const topo::Platform& p, const Config& config) {
  std::vector<int> hosts;
  if (!config.topology.order.empty()) {
    hosts = topo::load_order(p, config.topology.order);
  } else {
    for (int h = 0; h < p.host_count(); ++h) hosts.push_back(h);
  }
  if (static_cast<int>(hosts.size()) < config.nodes)
    throw ConfigError((config.topology.order.empty()
                           ? "topology.platform: " + config.topology.platform
                           : "topology.order: " + config.topology.order) +
                      ": has " + std::to_string(hosts.size()) + " hosts, nodes is " +
                      std::to_string(config.nodes));
  hosts.resize(config.nodes);
  return hosts;
}

void attach_topology_ring(Config& config) {
  if (config.scheduling != Scheduling::topology) return;
  const topo::Platform p = topo::load_platform(config.topology.platform);
  const std::vector<int> hosts = node_hosts(p, config);
  topo::SearchOptions opt;
  opt.nodes = config.nodes;
  opt.seed = config.seed;
  const topo::OrderProposal prop = topo::propose_order(p, hosts, opt);
  config.topology.ring.clear();
  for (int h : prop.order)
    config.topology.ring.push_back(
        static_cast<int>(std::find(hosts.begin(), hosts.end(), h) - hosts.begin()));
}

bool predicts_shift_scan(const Config& config, int steps) {
  return steps > 1 && !config.topology.platform.empty();
}

void check_prediction_platform(const Config& config, int steps) {
  if (!predicts_shift_scan(config, steps)) return;
  node_hosts(topo::load_platform(config.topology.platform), config);
}

}  // namespace evb
