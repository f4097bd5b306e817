#pragma once
// driver_options.provider (and domain) checked against this libfabric before
// any rank starts (DriverEntry::check_options).
#include <string>
#include <vector>

#include "core/config.hpp"
#include "drivers/api/registry.hpp"

namespace evb::libfabric {

// One message per bad key: a provider this libfabric does not have, one it
// has that finds no usable interface here (said differently), a domain no
// provider offers.
// Under OptionCheck::names only a provider this libfabric does not have is
// refused; one without a usable interface here, and domains, are judged
// under OptionCheck::here.
std::vector<std::string> check_libfabric_options(const Config& config, OptionCheck scope);

// Providers this libfabric has that evbench's protocols do not run over,
// and why (docs/drivers/libfabric.md, "sockets and udp"); empty for the
// rest. `canonical`: as canonical_provider() spells it.
std::string refused_provider(const std::string& canonical);

}  // namespace evb::libfabric
