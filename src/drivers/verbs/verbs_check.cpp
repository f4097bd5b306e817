#include "drivers/verbs/verbs_check.hpp"

#include <set>

namespace evb::verbs {
namespace {

std::string option(const Config& c, const std::string& key, const std::string& unset) {
  auto it = c.driver_options.find(key);
  return it == c.driver_options.end() ? unset : it->second;
}

}  // namespace

// Only a device that exists can be judged: with no device at all, the probe
// already refuses the driver ("no RDMA device found").
std::vector<std::string> check_verbs_options(const Config& config,
                                             const std::vector<PortInfo>& ports) {
  const std::string device = option(config, "device", "auto");
  if (device == "auto" || ports.empty()) return {};
  std::set<std::string> devices;
  std::string listed;
  bool port_found = false;
  const std::string port = option(config, "port", "1");
  for (const PortInfo& p : ports) {
    if (devices.insert(p.device).second) listed += (listed.empty() ? "" : ", ") + p.device;
    if (p.device == device && std::to_string(p.port) == port) port_found = true;
  }
  if (!devices.count(device))
    return {"driver_options.device: '" + device +
            "' is not an RDMA device here (devices: " + listed + "; ibv_devices lists them)"};
  if (!port_found) return {"driver_options.port: device " + device + " has no port " + port};
  return {};
}

std::vector<std::string> check_verbs_options(const Config& config, OptionCheck scope) {
  if (scope == OptionCheck::names || option(config, "device", "auto") == "auto") return {};
  return check_verbs_options(config, ports());
}

}  // namespace evb::verbs
