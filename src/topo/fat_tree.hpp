#pragma once
// Generated fat trees (2 or 3 levels), with the routing and cabling defects
// the DAQPIPE paper found on real clusters.
//
// Two levels: `leaves` leaf switches, each with `ports` host ports and
// `uplinks` uplinks spread evenly over `spines` spine switches
// (uplinks % spines == 0). Oversubscription is ports:uplinks. Three levels:
// `pods` copies of that, and each spine has `core_uplinks` uplinks, spine s's
// uplink c going to core s * core_uplinks + c (one cable per core and pod).
//
// Routing d_mod_k: a destination on leaf port q is reached through uplink
// q mod uplinks on every other leaf, and its spine comes down on the matching
// link, so "the Nth port of a remote leaf is always reached through the Nth
// uplink" (the paper's cluster D). Routing irregular: LIDs are handed out in
// a seeded (discovery) order and every leaf spreads its remote destinations
// over its uplinks round-robin in LID order, as a subnet manager balancing
// port use does; each leaf skips its own hosts, so each gets its own pattern
// (the paper's cluster A). Spine and core tables are d-mod-k in both.
//
// Switches are named leaf<i>, spine<i> (line<i>, fabric<i> for a director)
// and core<i>, hosts prefix001... Defects: `populated[l]` hosts on leaf l (first ports; default
// all), `holes` (leaf, port) pairs left empty, `misplaced` seeded swaps of host names between
// cabled ports. Hosts are named prefix001... in cabling order before the swaps, and the platform's
// host order is by name, so misplaced hosts put the default rank order out of cabling order.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "topo/platform.hpp"

namespace evb::topo {

enum class TreeRouting { d_mod_k, irregular };

struct FatTreeSpec {
  std::string name = "fat-tree";
  int levels = 2;
  int pods = 1;
  int leaves = 1;  // per pod
  int ports = 1;   // host ports per leaf
  int uplinks = 1;
  int spines = 1;  // per pod
  int core_uplinks = 0;
  std::vector<int> populated;              // per leaf (global index), empty: all ports
  std::vector<std::pair<int, int>> holes;  // (leaf, port), 0-based
  int misplaced = 0;
  bool director = false;  // name switches as a director's line and fabric cards
  std::string host_prefix = "node";
  TreeRouting routing = TreeRouting::d_mod_k;
  uint64_t seed = 1;
  double host_bandwidth = 100e9, host_latency = 1e-7;
  double switch_bandwidth = 100e9, switch_latency = 1e-7;
};

// Builds the tables but does not call finish() (callers may override table
// entries first). Throws evb::ConfigError for inconsistent specs, naming
// `where` (e.g. "file.yaml:3:5: fat_tree").
Platform make_fat_tree(const FatTreeSpec& spec, const std::string& where);

}  // namespace evb::topo
