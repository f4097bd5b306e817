#include "drivers/verbs/verbs_check.hpp"

#include <set>

#include "core/error.hpp"
#include "drivers/verbs/verbs_options.hpp"

namespace evb::verbs {

// Only a device that exists can be judged: with no device at all, the probe
// already refuses the driver ("no RDMA device found").
std::vector<std::string> check_verbs_options(const Config& config,
                                             const std::vector<PortInfo>& ports) {
  VerbsOptions o;  // as the driver will read them
  try {
    o = parse_verbs_options(&config);
  } catch (const ConfigError& e) {
    return {e.what()};
  }
  const std::string& device = o.device;
  if (device == "auto" || ports.empty()) return {};
  std::set<std::string> devices;
  std::string listed;
  bool port_found = false;
  const std::string port = std::to_string(o.port);
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
  if (scope == OptionCheck::names) return {};
  try {
    if (parse_verbs_options(&config).device == "auto") return {};  // no device to look up
  } catch (const ConfigError& e) {
    return {e.what()};
  }
  return check_verbs_options(config, ports());
}

}  // namespace evb::verbs
