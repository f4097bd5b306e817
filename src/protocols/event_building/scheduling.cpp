#include "protocols/event_building/scheduling.hpp"

#include <algorithm>
#include <utility>

#include "core/rng.hpp"

namespace evb {

void fill_visit_order(Scheduling policy, int bu, int nru, uint64_t seed, uint64_t event,
                      std::vector<int>& order) {
  order.resize(nru);
  for (int k = 0; k < nru; ++k) order[k] = (bu + k) % nru;
  if (policy == Scheduling::random) {
    Rng rng(mix(seed, event, static_cast<uint64_t>(bu) + 0x5C4ED));
    for (int i = nru - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  }
}

void fill_visit_order(const Config& config, int bu, int nru, uint64_t event,
                      std::vector<int>& order) {
  const std::vector<int>& ring = config.topology.ring;
  if (config.scheduling != Scheduling::topology || static_cast<int>(ring.size()) != nru) {
    fill_visit_order(config.scheduling, bu, nru, config.seed, event, order);
    return;
  }
  const int at = static_cast<int>(std::find(ring.begin(), ring.end(), bu) - ring.begin());
  order.resize(nru);
  for (int k = 0; k < nru; ++k) order[k] = ring[(at + k) % nru];
}

std::vector<int> visit_order(Scheduling policy, int bu, int nru, uint64_t seed, uint64_t event) {
  std::vector<int> order;
  fill_visit_order(policy, bu, nru, seed, event, order);
  return order;
}

}  // namespace evb
