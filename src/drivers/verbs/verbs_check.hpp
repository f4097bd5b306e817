#pragma once
// driver_options.device and port checked against the RDMA devices libibverbs
// sees here (DriverEntry::check_options).
#include <string>
#include <vector>

#include "core/config.hpp"
#include "drivers/api/registry.hpp"
#include "drivers/verbs/verbs_probe.hpp"

namespace evb::verbs {

// One message per bad key: a device that is not here (the devices that are
// are listed), a port the device does not have.
// Device names are a host's: judged under OptionCheck::here only.
std::vector<std::string> check_verbs_options(const Config& config, OptionCheck scope);
std::vector<std::string> check_verbs_options(const Config& config,
                                             const std::vector<PortInfo>& ports);

}  // namespace evb::verbs
