#include "protocols/event_building/control_limits.hpp"

#include <algorithm>
#include <cstdint>

#include "core/ring_geometry.hpp"

namespace evb {

ControlLimits control_limits(const Config& c, bool pulls) {
  ControlLimits l;
  l.nodes = c.nodes;
  l.credits_allocated = c.credits;
  l.background_entries = static_cast<int>(c.background.size());
  l.processing_time_max_s = std::max(c.peer_timeout_s, c.fu.processing_time_s);
  const double mean = static_cast<double>(std::max<uint64_t>(1, c.fragment.size));
  for (int r = 0; r < c.nodes; ++r)
    l.rate_factor_max.push_back(static_cast<double>(max_payload(c, r)) / mean);
  if (!pulls)
    l.not_here.emplace_back("parallel", "protocol " + c.protocol +
                                            " does not read parallel: RUs send fragments as the "
                                            "EVM assigns events");
  return l;
}

}  // namespace evb
