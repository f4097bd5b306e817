#include "protocols/monitor/live_view.hpp"

#include <string_view>

#include "core/error.hpp"
#include "protocols/common/engine.hpp"

namespace evb {

void StatsRecord::refuse(const std::string& what) const {
  throw PeerError(from, "monitor: stats from " + engine.peer_name(from) + " refused: " + what);
}

bool StatsRecord::check(const IntervalRate& rate, uint64_t total) const {
  if (const std::string_view fault = rate.check(total, start_ns, end_ns); !fault.empty())
    refuse(std::string(fault));
  return !rate.stale(end_ns);
}

bool StatsRecord::count(IntervalRate& rate, uint64_t total) const {
  if (!check(rate, total)) return false;
  rate.add(total, start_ns, end_ns);
  return true;
}

void ControlCommand::refuse(const std::string& what) const {
  throw PeerError(from, "rank " + std::to_string(engine.rank()) + ": a control command from " +
                            engine.peer_name(from) + " refused: " + what);
}

}  // namespace evb
