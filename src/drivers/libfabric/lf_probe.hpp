#pragma once
// What `evbench drivers` shows for libfabric: the library version and which
// providers can open an RDM endpoint with the driver's capabilities here.
#include <string>
#include <vector>

#include "drivers/api/registry.hpp"

namespace evb::libfabric {

struct ProviderCheck {
  std::string name;      // as users write it: "tcp", "shm", "verbs"
  std::string resolved;  // what fi_getinfo chose: "tcp;ofi_rxm" (when usable)
  bool usable = false;
  std::string reason;  // when not usable
};

// The providers the driver knows by name (provider = ...).
const std::vector<std::string>& known_providers();

// Runs fi_getinfo for every known provider with the driver's hints.
std::vector<ProviderCheck> check_providers();

// "libfabric 1.17.0" (run-time library; the revision from the headers when
// they match).
std::string library_version();

DriverProbe probe_libfabric();

}  // namespace evb::libfabric
