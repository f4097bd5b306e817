#pragma once
// What the credit model's network saw, for rank 0's report: the links that
// explain a collapse (those whose head chunk waited longest for credits,
// and the busiest inter-switch links) as `#` lines after the table, and
// every link that carried bytes in results.network (docs/SCALE.md, "What
// the credit model reports").
#include <string>

#include "core/json_writer.hpp"
#include "sim/credit/network.hpp"
#include "topo/platform.hpp"

namespace evb {

// `elapsed_ns`: the simulated time the figures cover (the run so far);
// `wall_s`: the wall time the simulation has taken so far, for the
// simulator's own speed (network events per second of wall time).
std::string credit_network_text(const topo::Platform& p, const simnet::CreditNetwork& net,
                                int64_t elapsed_ns, double wall_s);
void write_credit_network(JsonWriter& w, const topo::Platform& p, const simnet::CreditNetwork& net,
                          int64_t elapsed_ns, double wall_s);

}  // namespace evb
