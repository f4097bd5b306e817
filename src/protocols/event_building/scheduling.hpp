#pragma once
// Scheduling policies: the order in which a BU visits RUs (PULL) or the EVM
// tells RUs to send (PUSH). Barrel shift starts at the BU's own index and
// steps by one; random draws a fresh permutation per event from (seed, event,
// bu), so the same seed gives the same schedule on every run. Topology is a
// barrel over a ring of node indices (Config::topology.ring, filled from the
// platform by the application): at step k the BU at ring position p visits
// the RU at position p + k, so every step is a shift the ring was chosen to
// route without link conflicts; an empty ring is the plain barrel.
#include <cstdint>
#include <vector>

#include "core/config.hpp"

namespace evb {

std::vector<int> visit_order(Scheduling policy, int bu, int nru, uint64_t seed, uint64_t event);
// The same into `order` (resized; its capacity reused event after event).
void fill_visit_order(Scheduling policy, int bu, int nru, uint64_t seed, uint64_t event,
                      std::vector<int>& order);
// The configured policy (scheduling, seed and, for topology, the ring).
void fill_visit_order(const Config& config, int bu, int nru, uint64_t event,
                      std::vector<int>& order);

}  // namespace evb
