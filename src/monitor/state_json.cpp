#include "monitor/state_json.hpp"

namespace evb {

// Placeholder until the page's data lands (issue 23, h-expo).
std::string state_json(const std::deque<MonitorSnapshot>& history, const std::string&) {
  return "{\"snapshots\": " + std::to_string(history.size()) + "}";
}

}  // namespace evb
