// Minimum-hop forwarding tables, spread over equal-cost ports by d-mod-k.
#include "topo/routing.hpp"

#include <deque>

namespace evb::topo {

void fill_shortest_tables(Platform& p) {
  const int nn = static_cast<int>(p.nodes.size());
  for (int sw : p.switches) p.nodes[sw].table.assign(p.hosts.size(), 0);
  std::vector<int> dist(nn);
  for (int d = 0; d < p.host_count(); ++d) {
    // Hops from every node to host d, over switches only (hosts do not forward).
    std::fill(dist.begin(), dist.end(), -1);
    std::deque<int> queue{p.hosts[d]};
    dist[p.hosts[d]] = 0;
    while (!queue.empty()) {
      const int at = queue.front();
      queue.pop_front();
      if (at != p.hosts[d] && p.nodes[at].kind == NodeKind::host) continue;
      for (int link : p.nodes[at].port_link) {
        if (link < 0) continue;
        const int next = p.links[link].to;  // neighbour; reverse cable reaches `at`
        if (dist[next] != -1) continue;
        dist[next] = dist[at] + 1;
        queue.push_back(next);
      }
    }
    for (int sw : p.switches) {
      Node& s = p.nodes[sw];
      if (dist[sw] <= 0) continue;
      std::vector<int> ports;
      for (size_t port = 0; port < s.port_link.size(); ++port) {
        const int link = s.port_link[port];
        if (link < 0) continue;
        const int next = p.links[link].to;
        if (dist[next] != dist[sw] - 1) continue;
        if (p.nodes[next].kind == NodeKind::host && next != p.hosts[d]) continue;
        ports.push_back(static_cast<int>(port));
      }
      if (!ports.empty()) s.table[d] = ports[d % ports.size()];
    }
  }
}

}  // namespace evb::topo
