#pragma once
// scheduling: topology — the ring of node indices the barrel runs over,
// chosen from the platform so that every shift avoids link conflicts.
#include "core/config.hpp"

namespace evb {

// Loads config.topology.platform (and .order), maps node i to the i-th host
// and fills config.topology.ring with the order `evbench topo` proposes for
// those hosts (same hosts, no selection; seeded by `seed`, so every rank
// computes the same ring). Does nothing unless scheduling is topology.
// Throws ConfigError naming the platform or order file and line.
void attach_topology_ring(Config& config);

}  // namespace evb
