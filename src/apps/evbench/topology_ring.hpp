#pragma once
// scheduling: topology — the ring of node indices the barrel runs over,
// chosen from the platform so that every shift avoids link conflicts.
#include <vector>

#include "core/config.hpp"
#include "topo/platform.hpp"

namespace evb {

// The platform host index each node runs on: node i on the i-th host of
// topology.order, or of the platform's host order without one. Throws
// ConfigError when there are fewer hosts than nodes.
std::vector<int> node_hosts(const topo::Platform& platform, const Config& config);

// Loads config.topology.platform (and .order), maps node i to the i-th host
// and fills config.topology.ring with the order `evbench topo` proposes for
// those hosts (same hosts, no selection; seeded by `seed`, so every rank
// computes the same ring). Does nothing unless scheduling is topology.
// Throws ConfigError naming the platform or order file and line.
void attach_topology_ring(Config& config);

// True when a run of `config` in `steps` steps (the protocol's: a one-to-one
// shift scan has one per shift) reports predicted rates per shift: a scan
// with topology.platform (docs/METRICS.md).
bool predicts_shift_scan(const Config& config, int steps);
// Loads the platform (and order) of such a run up front, so a bad file is a
// ConfigError before any traffic; does nothing for other runs.
void check_prediction_platform(const Config& config, int steps);

}  // namespace evb
