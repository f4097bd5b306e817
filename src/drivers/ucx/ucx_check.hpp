#pragma once
// driver_options.tls and driver_options.devices checked against what this
// UCX finds here, before any rank starts (DriverEntry::check_options).
#include <string>
#include <vector>

#include "core/config.hpp"
#include "drivers/api/registry.hpp"

namespace evb::ucx {

// One message per bad key, e.g. "driver_options.tls: 'bogus' is not a UCX
// transport (here: cma, mm, posix, self, shm, sm, sysv, tcp)".
// Under OptionCheck::names only a name UCX does not know is refused; a
// transport UCX knows but finds no device for, and devices, are judged
// under OptionCheck::here.
std::vector<std::string> check_ucx_options(const Config& config, OptionCheck scope);

// The same from the resource list ("tcp/lo", "posix/memory", ...), for tests.
std::vector<std::string> check_ucx_options(const Config& config,
                                           const std::vector<std::string>& resources,
                                           OptionCheck scope = OptionCheck::here);

}  // namespace evb::ucx
