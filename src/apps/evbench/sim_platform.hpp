#pragma once
// From the topology model to what a SimGrid run needs: which platform host
// each rank runs on (the first hosts of the order, one per node, a dedicated
// EVM on the next one when there is one, then one per congestor rank of
// `background:`), and the routes file for the
// platform plug-in (hosts, directional links, one route per pair of used
// hosts, taken from the model's forwarding tables).
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "sim/routes_file.hpp"
#include "topo/platform.hpp"

namespace evb {

struct SimPlacement {
  std::vector<int> rank_host;    // platform host index, by rank
  std::vector<int> used;         // distinct platform hosts used, in first-use order
  bool evm_shares_host = false;  // dedicated EVM rank put on node 0's host (no host left)
};

// `order`: platform host indices in the order nodes take them. Throws
// ConfigError when the order has fewer hosts than the config has nodes, or
// than its nodes, a dedicated EVM and its congestors together.
SimPlacement place_ranks(const Topology& t, const std::vector<int>& order,
                         const std::string& platform_name);

// Links keep their bandwidth (bit/s -> byte/s); latencies are set to zero
// when `zero_latency` (SimGrid shares a link between flows in proportion to
// their route latency otherwise, which no credit-based fabric does).
sim::SimPlatform sim_platform(const topo::Platform& p, const std::vector<int>& used,
                              bool zero_latency);

// Hostfile text for smpirun: one line per rank, the rank's host name.
std::string hostfile_text(const topo::Platform& p, const SimPlacement& placement);

}  // namespace evb
