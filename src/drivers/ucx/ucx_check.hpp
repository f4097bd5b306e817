#pragma once
// driver_options.tls and driver_options.devices checked against what this
// UCX finds here, before any rank starts (DriverEntry::check_options).
#include <string>
#include <vector>

#include "core/config.hpp"

namespace evb::ucx {

// One message per bad key, e.g. "driver_options.tls: 'bogus' is not a UCX
// transport (here: cma, mm, posix, self, shm, sm, sysv, tcp)".
std::vector<std::string> check_ucx_options(const Config& config);

// The same from the resource list ("tcp/lo", "posix/memory", ...), for tests.
std::vector<std::string> check_ucx_options(const Config& config,
                                           const std::vector<std::string>& resources);

}  // namespace evb::ucx
