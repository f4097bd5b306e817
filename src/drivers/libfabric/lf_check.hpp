#pragma once
// driver_options.provider (and domain) checked against this libfabric before
// any rank starts (DriverEntry::check_options).
#include <string>
#include <vector>

#include "core/config.hpp"

namespace evb::libfabric {

// One message per bad key: a provider this libfabric does not have, one it
// has that finds no usable interface here (said differently), a domain no
// provider offers.
std::vector<std::string> check_libfabric_options(const Config& config);

}  // namespace evb::libfabric
