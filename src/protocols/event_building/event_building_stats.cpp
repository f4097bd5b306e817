#include "protocols/event_building/event_building_stats.hpp"

#include <algorithm>

namespace evb {

bool EventBuildingStats::book(int64_t t, uint64_t bytes, uint64_t network_bytes, uint64_t events,
                              int64_t warmup_ns, int64_t end_ns, int64_t interval_ns) {
  bytes_total += bytes;
  network_bytes_total += network_bytes;
  last_completion_ns = std::max(last_completion_ns, t);
  const bool in_window = t >= warmup_ns && (end_ns <= 0 || t <= end_ns);
  if (in_window) {
    bytes_in_window += bytes;
    network_bytes_in_window += network_bytes;
    events_in_window += events;
  }
  if (interval_ns > 0 && t >= 0) {
    const size_t k = static_cast<size_t>(t / interval_ns);
    if (sample_bytes.size() <= k) {
      sample_bytes.resize(k + 1, 0);
      sample_events.resize(k + 1, 0);
    }
    sample_bytes[k] += bytes;
    sample_events[k] += events;
  }
  return in_window;
}

}  // namespace evb
