// Platform building and the route walk over forwarding tables.
#include "topo/platform.hpp"

#include <algorithm>
#include <tuple>

#include "core/error.hpp"

namespace evb::topo {

int Platform::add_host(const std::string& host_name) {
  Node n;
  n.name = host_name;
  n.kind = NodeKind::host;
  n.host_index = static_cast<int>(hosts.size());
  nodes.push_back(n);
  hosts.push_back(static_cast<int>(nodes.size()) - 1);
  return hosts.back();
}

int Platform::add_switch(const std::string& switch_name, int level) {
  Node n;
  n.name = switch_name;
  n.kind = NodeKind::switch_node;
  n.level = level;
  nodes.push_back(n);
  switches.push_back(static_cast<int>(nodes.size()) - 1);
  return switches.back();
}

namespace {

void set_port(Node& n, int port, int link, const std::string& source) {
  if (port < 0)
    throw ConfigError(source + ": " + n.name + ": negative port " + std::to_string(port));
  if (n.port_link.size() <= static_cast<size_t>(port)) n.port_link.resize(port + 1, -1);
  if (n.port_link[port] != -1)
    throw ConfigError(source + ": " + n.name + ": port " + std::to_string(port) +
                      " is cabled twice");
  n.port_link[port] = link;
}

}  // namespace

int Platform::connect(int a, int port_a, int b, int port_b, double bandwidth, double latency) {
  const int ab = static_cast<int>(links.size());
  links.push_back(Link{a, b, port_a, port_b, bandwidth, latency, ab + 1});
  links.push_back(Link{b, a, port_b, port_a, bandwidth, latency, ab});
  for (auto [n, port, link] : {std::tuple{a, port_a, ab}, std::tuple{b, port_b, ab + 1}}) {
    Node& node = nodes[n];
    if (node.kind == NodeKind::host) {
      if (node.uplink != -1) throw ConfigError(source + ": host " + node.name + " is cabled twice");
      node.uplink = link;
      const int other = links[link].to;
      node.leaf = other;
      node.leaf_port = links[link].to_port;
    }
    set_port(node, port, link, source);
  }
  return ab;
}

int Platform::find_host(const std::string& host_name) const {
  for (size_t h = 0; h < hosts.size(); ++h)
    if (nodes[hosts[h]].name == host_name) return static_cast<int>(h);
  return -1;
}

int Platform::find_node(const std::string& node_name) const {
  for (size_t n = 0; n < nodes.size(); ++n)
    if (nodes[n].name == node_name) return static_cast<int>(n);
  return -1;
}

void Platform::finish() {
  const size_t n = hosts.size();
  const std::string where = source.empty() ? name : source;
  if (n > static_cast<size_t>(kMaxHosts))
    throw ConfigError(where + ": " + std::to_string(n) + " hosts; platforms have at most " +
                      std::to_string(kMaxHosts) + " (routes for every pair are stored)");
  for (size_t h = 0; h < n; ++h)
    if (nodes[hosts[h]].uplink == -1)
      throw ConfigError(where + ": host " + nodes[hosts[h]].name + " is not cabled to a switch");
  assign_levels();
  route_offset_.assign(n * n + 1, 0);
  route_links_.clear();
  const size_t max_hops = nodes.size() + 1;
  for (size_t s = 0; s < n; ++s) {
    for (size_t d = 0; d < n; ++d) {
      route_offset_[s * n + d] = static_cast<uint32_t>(route_links_.size());
      if (s == d) continue;
      int link = nodes[hosts[s]].uplink;
      const int target = hosts[d];
      size_t hops = 0;
      for (;;) {
        route_links_.push_back(link);
        const int at = links[link].to;
        if (at == target) break;
        const Node& sw = nodes[at];
        auto fail = [&](const std::string& why) {
          throw ConfigError(where + ": switch " + sw.name + ": route " + nodes[hosts[s]].name +
                            " -> " + nodes[target].name + ": " + why);
        };
        if (sw.kind != NodeKind::switch_node) fail("arrives at another host");
        if (++hops > max_hops) fail("loops (the forwarding tables send it in a circle)");
        const int port = d < sw.table.size() ? sw.table[d] : 0;
        if (port <= 0) fail("no forwarding-table entry for the destination");
        if (static_cast<size_t>(port) >= sw.port_link.size() || sw.port_link[port] == -1)
          fail("forwarding table points at port " + std::to_string(port) +
               ", where nothing is cabled");
        link = sw.port_link[port];
      }
    }
  }
  route_offset_[n * n] = static_cast<uint32_t>(route_links_.size());
}

void Platform::assign_levels() {
  // Switches without a level (dumps, explicit lists): hops from the nearest host.
  std::vector<int> dist(nodes.size(), -1);
  std::vector<int> frontier;
  for (int h : hosts) {
    dist[h] = 0;
    frontier.push_back(h);
  }
  while (!frontier.empty()) {
    std::vector<int> next;
    for (int at : frontier)
      for (int link : nodes[at].port_link) {
        if (link < 0) continue;
        const int to = links[link].to;
        if (dist[to] != -1) continue;
        dist[to] = dist[at] + 1;
        next.push_back(to);
      }
    frontier.swap(next);
  }
  for (int s : switches)
    if (nodes[s].level == 0 && dist[s] > 0) nodes[s].level = dist[s];
}

const int* Platform::route_begin(int src, int dst) const {
  return route_links_.data() + route_offset_[static_cast<size_t>(src) * hosts.size() + dst];
}

const int* Platform::route_end(int src, int dst) const {
  return route_links_.data() + route_offset_[static_cast<size_t>(src) * hosts.size() + dst + 1];
}

std::vector<int> Platform::route(int src, int dst) const {
  return std::vector<int>(route_begin(src, dst), route_end(src, dst));
}

bool Platform::inter_switch(int link) const {
  const Link& l = links[link];
  return nodes[l.from].kind == NodeKind::switch_node && nodes[l.to].kind == NodeKind::switch_node;
}

std::string Platform::link_name(int link) const {
  const Link& l = links[link];
  return nodes[l.from].name + ":" + std::to_string(l.from_port) + "->" + nodes[l.to].name + ":" +
         std::to_string(l.to_port);
}

std::vector<int> Platform::cabling_order() const {
  std::vector<int> order(hosts.size());
  for (size_t h = 0; h < order.size(); ++h) order[h] = static_cast<int>(h);
  std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
    const Node& x = host(a);
    const Node& y = host(b);
    return std::tie(x.leaf, x.leaf_port) < std::tie(y.leaf, y.leaf_port);
  });
  return order;
}

}  // namespace evb::topo
