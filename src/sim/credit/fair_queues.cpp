// The per-flow queues' slots, one per entry of the platform's stored routes.
#include "sim/credit/fair_queues.hpp"

namespace evb::simnet {

FairQueues::FairQueues(const topo::Platform& platform, int lanes)
    : base_(platform.route_begin(0, 0)),
      lanes_(static_cast<uint32_t>(lanes)),
      flows_(static_cast<size_t>(
                 platform.route_end(platform.host_count() - 1, platform.host_count() - 1) - base_) *
             static_cast<size_t>(lanes)),
      last_(platform.links.size(), kNone) {}

}  // namespace evb::simnet
