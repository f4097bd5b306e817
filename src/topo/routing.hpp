#pragma once
// Forwarding tables for platforms described without them: minimum hops, and
// among the equally short output ports of a switch destination d takes the
// (d mod k)-th (d-mod-k over host indices, ports in ascending order).
#include "topo/platform.hpp"

namespace evb::topo {

// Fills every switch's `table` (sized to the host count). Entries stay 0 for
// unreachable hosts; Platform::finish() reports them.
void fill_shortest_tables(Platform& platform);

}  // namespace evb::topo
