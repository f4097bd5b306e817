#pragma once
// What `evbench drivers` shows for ucx: the library version and the
// transports/devices UCX finds here (ucp_context_print_info's resources).
#include <string>
#include <vector>

#include "drivers/api/registry.hpp"

namespace evb::ucx {

// "ucx 1.13.1".
std::string library_version();

// The transport/device pairs a context with every transport sees
// ("tcp/lo", "posix/memory", "rc_mlx5/mlx5_0:1").
std::vector<std::string> resources();

DriverProbe probe_ucx();

}  // namespace evb::ucx
