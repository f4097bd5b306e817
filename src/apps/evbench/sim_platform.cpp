#include "apps/evbench/sim_platform.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace evb {

SimPlacement place_ranks(const Topology& t, const std::vector<int>& order,
                         const std::string& platform_name) {
  const int available = static_cast<int>(order.size());
  if (available < t.nodes)
    throw ConfigError("nodes: " + std::to_string(t.nodes) + " nodes but " + platform_name +
                      " offers " + std::to_string(available) + " hosts");
  SimPlacement p;
  p.rank_host.resize(static_cast<size_t>(t.processes()), -1);
  for (int r = 0; r < t.nprocs; ++r) {
    int node = t.ranks[r].node;
    if (node >= t.nodes) {  // a dedicated EVM's own node
      if (node < available) {
        node = t.nodes;
      } else {
        node = 0;
        p.evm_shares_host = true;
      }
    }
    p.rank_host[r] = order[node];
  }
  // Congestors (background:) each on a host of its own after the event
  // builder's, as a launcher places them (`ranks: 3`), or on the builder
  // node they stand for, beside its ranks (`ranks: 50%`).
  if (!t.congestors.empty()) {
    // The nodes of their own, after the builder's (a share's stand on its nodes).
    int first = -1, last = -1, own = 0;
    for (const CongestorRank& k : t.congestors) {
      if (k.node < t.nodes) continue;
      first = first < 0 ? k.node : std::min(first, k.node);
      last = std::max(last, k.node);
      ++own;
    }
    if (last >= available)
      throw ConfigError("background: " + std::to_string(own) + " congestor ranks need hosts " +
                        std::to_string(first + 1) + " to " + std::to_string(last + 1) +
                        " of the order, after the event builder's, but " + platform_name +
                        " offers " + std::to_string(available) + " hosts");
    for (const CongestorRank& k : t.congestors)
      p.rank_host[static_cast<size_t>(k.rank)] = order[k.node];
  }
  for (int h : p.rank_host)
    if (std::find(p.used.begin(), p.used.end(), h) == p.used.end()) p.used.push_back(h);
  return p;
}

sim::SimPlatform sim_platform(const topo::Platform& p, const std::vector<int>& used,
                              bool zero_latency) {
  sim::SimPlatform s;
  s.hosts.reserve(used.size());
  for (int h : used) s.hosts.push_back(p.host(h).name);
  // Only links some route between used hosts crosses.
  std::vector<int> link_index(p.links.size(), -1);
  auto sim_link = [&](int l) {
    if (link_index[l] < 0) {
      link_index[l] = static_cast<int>(s.links.size());
      const topo::Link& k = p.links[l];
      s.links.push_back(
          {"l" + std::to_string(l), k.bandwidth / 8.0, zero_latency ? 0.0 : k.latency});
    }
    return link_index[l];
  };
  const int n = static_cast<int>(used.size());
  s.routes.reserve(static_cast<size_t>(n) * static_cast<size_t>(n > 0 ? n - 1 : 0));
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      sim::SimRoute r{a, b, {}};
      for (const int* l = p.route_begin(used[a], used[b]); l != p.route_end(used[a], used[b]); ++l)
        r.links.push_back(sim_link(*l));
      s.routes.push_back(std::move(r));
    }
  }
  return s;
}

std::string hostfile_text(const topo::Platform& p, const SimPlacement& placement) {
  std::string text;
  for (int h : placement.rank_host) text += p.host(h).name + "\n";
  return text;
}

}  // namespace evb
