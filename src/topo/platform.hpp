#pragma once
// The platform model: hosts, switches, directional links and the routes the
// switches' forwarding tables give for every ordered host pair.
//
// Links are directional. A full-duplex cable is two Link entries, one per
// direction, each with the cable's full bandwidth (`reverse` names the
// other). Flows going opposite ways on one cable never share bandwidth on
// InfiniBand, Omni-Path or Ethernet, so counting them on one link would
// invent conflicts; a simulator gives each directional link its own
// bandwidth.
//
// Routes come from forwarding tables, as InfiniBand linear forwarding tables
// (LFTs) do: every switch maps each destination host to an output port, and
// a route is the walk from the source host's uplink through the tables until
// the destination host. Platform::finish() walks them once and checks every
// pair is reachable without loops.
//
// Host order: `hosts` is the platform's host order, the order a job takes
// hosts in by default (the first N, like a batch system handing out nodes by
// name). Each host knows where it is cabled (switch and port), so cabling
// defects (nodes out of order, holes, partially populated leaves) show up as
// the difference between the two orders; cabling_order() gives the physical
// one.
//
// A Platform is plain data owned by its user; it holds no global state.
#include <cstdint>
#include <string>
#include <vector>

#include "topo/network_settings.hpp"

namespace evb::topo {

enum class NodeKind { host, switch_node };

// One directional link: bandwidth in bit/s, latency in seconds.
struct Link {
  int from = -1;         // node index (Platform::nodes)
  int to = -1;           // node index
  int from_port = 0;     // output port on `from` (1-based on switches, 1 on hosts)
  int to_port = 0;       // input port on `to`
  double bandwidth = 0;  // bit/s
  double latency = 0;    // s
  int reverse = -1;      // the opposite direction of the same cable, or -1
};

// A host or a switch. For switches, `port_link[p]` is the outgoing link on
// port p (-1: nothing cabled) and `table[h]` the output port towards host h
// (index into Platform::hosts; 0 = no route). `level` is 0 for hosts, 1 for
// leaf switches, 2 for spines, 3 for cores (0 for switches of a dump whose
// level is unknown, filled in by finish() from the distance to hosts).
struct Node {
  std::string name;
  NodeKind kind = NodeKind::host;
  int level = 0;
  std::vector<int> port_link;  // switches: port -> outgoing link index
  std::vector<int> table;      // switches: host index -> output port
  // Hosts: where the host is cabled.
  int host_index = -1;  // index into Platform::hosts
  int leaf = -1;        // node index of the switch it is cabled to
  int leaf_port = 0;    // port on that switch
  int uplink = -1;      // outgoing link index (host -> switch)
};

class Platform {
 public:
  // Routes for every ordered pair are stored (O(hosts^2)): the model's limit.
  static constexpr int kMaxHosts = 8192;

  std::string name;    // from the description (or the file name)
  std::string source;  // file it was read from, for messages
  std::vector<Node> nodes;
  std::vector<int> hosts;     // node indices, in host order
  std::vector<int> switches;  // node indices
  std::vector<Link> links;
  // The credit model's parameters (`network:`; only `evbench sim --model
  // credit` reads them).
  NetworkSettings network;

  // Building (loaders and tests): add nodes, then cables, then fill tables,
  // then finish().
  int add_host(const std::string& host_name);  // returns the node index
  int add_switch(const std::string& switch_name, int level);
  // A full-duplex cable between (a, port_a) and (b, port_b): two Links.
  // Returns the index of the a -> b link (the b -> a one is its reverse).
  int connect(int a, int port_a, int b, int port_b, double bandwidth, double latency);
  // Computes every route from the tables; throws evb::ConfigError naming the
  // platform source and the switch when a table has no entry, points at an
  // uncabled port or loops.
  void finish();

  int host_count() const { return static_cast<int>(hosts.size()); }
  const Node& host(int h) const { return nodes[hosts[h]]; }
  // Host index by name, -1 when unknown.
  int find_host(const std::string& host_name) const;
  int find_node(const std::string& node_name) const;

  // The route from host `src` to host `dst` (host indices): link indices in
  // order, host uplink first, destination's downlink last. Empty for src ==
  // dst. Valid after finish().
  const int* route_begin(int src, int dst) const;
  const int* route_end(int src, int dst) const;
  std::vector<int> route(int src, int dst) const;

  // True when both ends of the link are switches (inter-switch link, ISL).
  bool inter_switch(int link) const;
  // "leaf3:17->spine0:1" style name for reports.
  std::string link_name(int link) const;
  // Host indices sorted by (leaf switch, port): the physical order.
  std::vector<int> cabling_order() const;

 private:
  void assign_levels();
  std::vector<uint32_t> route_offset_;  // (src * n + dst) -> start in route_links_
  std::vector<int> route_links_;
};

}  // namespace evb::topo
