#pragma once
// The life of one rank: create the driver, exchange addresses, create the
// protocol's run (it sets up the units this rank hosts), run it, gather
// statistics to rank 0, which reports. Returns the rank's exit code.
#include <string>

#include "apps/evbench/run_options.hpp"
#include "core/config.hpp"
#include "core/topology.hpp"
#include "drivers/api/bootstrap.hpp"
#include "drivers/api/registry.hpp"
#include "protocols/api/protocol_registry.hpp"

namespace evb {

int run_worker(const Config& config, const PluginRegistry& plugins,
               const ProtocolRegistry& protocols, Bootstrap& bootstrap, const RunOptions& options);

// `what` with the units of rank `peer` after its first mention ("bootstrap:
// rank 2 disappeared" -> "bootstrap: rank 2 (RU 2, BU 2) disappeared"), so a
// failure the bootstrap reports names the peer as the drivers' errors do.
std::string with_units(const std::string& what, int peer, const Topology& topo);

}  // namespace evb
