// The platform description's key table.
#include "topo/platform_keys.hpp"

namespace evb::topo {

const std::vector<PlatformKey>& platform_keys() {
  static const std::vector<PlatformKey> table = {
      {"name", "text", "platform name used in reports"},
      {"links", "map", "default cables: `host` (host to switch) and `switch` (between switches)"},
      {"links.host.bandwidth", "rate",
       "e.g. 100Gbit/s, 25Gb/s, 800Mbit/s (bit/s, kbit/s, Mbit/s, Gbit/s, Tbit/s; default "
       "100Gbit/s)"},
      {"links.host.latency", "duration", "e.g. 100ns, 1us (default 100ns)"},
      {"links.switch.bandwidth", "rate", "as links.host.bandwidth, for inter-switch cables"},
      {"links.switch.latency", "duration", "as links.host.latency, for inter-switch cables"},
      {"routing", "choice",
       "fat_tree: d-mod-k (default) or irregular; switches + hosts: shortest (default) or "
       "tables"},
      {"seed", "integer", "seed of generated defects and irregular tables (default 1)"},
      {"fat_tree", "map", "a generated fat tree (give one of fat_tree, switches + hosts, fabric)"},
      {"fat_tree.levels", "2 or 3", "leaves + spines, or pods of those plus cores (default 2)"},
      {"fat_tree.pods", "integer", "levels 3: pods (default 1)"},
      {"fat_tree.leaves", "integer", "leaf switches (per pod)"},
      {"fat_tree.ports", "integer", "host ports per leaf"},
      {"fat_tree.uplinks", "integer",
       "uplinks per leaf, spread evenly over the spines; ports:uplinks is the oversubscription"},
      {"fat_tree.spines", "integer", "spine switches (per pod); divides uplinks"},
      {"fat_tree.core_uplinks", "integer",
       "levels 3: uplinks per spine; spine s's uplink c reaches core s * core_uplinks + c"},
      {"fat_tree.populated", "integer or list",
       "hosts on each leaf's first ports: one number for all leaves or one per leaf"},
      {"fat_tree.holes", "list of [leaf, port]", "ports (from 0) left empty"},
      {"fat_tree.misplaced", "integer", "seeded swaps of host names between cabled ports"},
      {"fat_tree.director", "boolean", "name switches as a director's line and fabric cards"},
      {"fat_tree.host_prefix", "text", "host names: prefix + number (default node)"},
      {"switches", "list of names", "explicit platforms: the switches"},
      {"hosts", "list", "explicit platforms: the hosts, in host order"},
      {"hosts[].name", "text", "host name"},
      {"hosts[].switch", "name", "the switch it is cabled to"},
      {"hosts[].port", "integer", "port on that switch (from 1)"},
      {"hosts[].bandwidth", "rate", "this cable's bandwidth (default links.host)"},
      {"hosts[].latency", "duration", "this cable's latency (default links.host)"},
      {"cables", "list", "explicit platforms: cables between switches"},
      {"cables[].a", "name", "one switch"},
      {"cables[].a_port", "integer", "its port (from 1)"},
      {"cables[].b", "name", "the other switch"},
      {"cables[].b_port", "integer", "its port (from 1)"},
      {"cables[].bandwidth", "rate", "this cable's bandwidth (default links.switch)"},
      {"cables[].latency", "duration", "this cable's latency (default links.switch)"},
      {"tables", "map",
       "SWITCH: {HOST: PORT, ...}: forwarding-table entries on top of the "
       "generated ones (all of them with routing: tables)"},
      {"fabric", "map", "a real fabric dump; paths relative to the YAML file"},
      {"fabric.topology", "file", "ibnetdiscover output"},
      {"fabric.lfts", "file", "dump_lfts output"},
      {"fabric.latency", "duration", "latency of every cable (default links.host.latency)"},
      {"network", "map",
       "the credit model's fabric (`evbench sim --model credit`; docs/SCALE.md); other tools "
       "ignore it"},
      {"network.chunk", "size",
       "messages move as chunks of this size, e.g. 32KiB; 1 B .. 1 GiB (default 32 KiB: within 3 % "
       "of 16 KiB at 64 nodes, docs/SCALE.md)"},
      {"network.buffer", "size",
       "buffer of each switch input port, at least one chunk (default 256 KiB)"},
      {"network.mtu", "size",
       "a message of at most this size leaves its NIC ahead of the queue pairs' chunks (a NIC "
       "interleaves a packet at a time, the model a chunk at a time; default 4 KiB)"},
      {"network.queueing", "choice",
       "fifo: an input port's head blocks those behind it (default); voq: one queue per output "
       "port"},
      {"network.switching", "choice",
       "cut-through: a chunk moves on once its head has arrived (default); store-and-forward: "
       "once all of it has"},
      {"network.infinite_buffers", "boolean",
       "no credit ever runs out and nothing waits behind another output's chunk: output "
       "queueing, each output serving its flows (host pairs) in turn (default false)"},
      {"network.flow_window", "integer",
       "the most chunks one connection may have between its NIC and its destination; the next "
       "waits at the source (0: no window, the default; 0 .. 1048576)"},
      {"network.virtual_lanes", "integer",
       "virtual lanes per link, 1 .. 15: each switch input port has network.buffer per lane, "
       "with credits and a queue of its own (default 1)"},
      {"network.vl_map", "choice",
       "which lane a message takes: traffic, commands on lane 0 and data on lanes 1 .. N-1 by "
       "destination host (default); destination, lane = destination host mod N"},
  };
  return table;
}

std::vector<std::string> platform_key_names(const std::string& group) {
  std::vector<std::string> out;
  const std::string prefix = group.empty() ? "" : group + ".";
  for (const auto& k : platform_keys()) {
    std::string rest = k.path;
    if (!prefix.empty()) {
      if (rest.rfind(prefix, 0) != 0) continue;
      rest = rest.substr(prefix.size());
    }
    rest = rest.substr(0, rest.find('.'));
    if (rest.size() > 2 && rest.compare(rest.size() - 2, 2, "[]") == 0) continue;
    bool seen = false;
    for (const auto& o : out) seen = seen || o == rest;
    if (!seen) out.push_back(rest);
  }
  return out;
}

std::string platform_reference_markdown() {
  std::string out = "| Key | Value | Meaning |\n|---|---|---|\n";
  for (const auto& k : platform_keys())
    out += "| `" + k.path + "` | " + k.value + " | " + k.doc + " |\n";
  return out;
}

}  // namespace evb::topo
