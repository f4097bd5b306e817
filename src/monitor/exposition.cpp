#include "monitor/exposition.hpp"

namespace evb {

// Placeholder until the exposition lands (issue 23, h-expo).
std::string prometheus_text(const MonitorSnapshot& latest, const MonitorSnapshot*) {
  return "# TYPE evbench_events_built_total counter\nevbench_events_built_total " +
         std::to_string(latest.events_built) + "\n";
}

}  // namespace evb
