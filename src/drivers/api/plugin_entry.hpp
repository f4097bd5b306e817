#pragma once
// What a driver or bootstrap implementation hands to the registry: the
// functions that need its library (probe, create, option checks, launch).
//
// A plug-in is registered in two halves. Its description (name, summary,
// option table, capabilities query: the *_register.cpp and *_options.cpp of
// its folder) is linked into evbench and needs no library, so `evbench
// --version`, `validate` and `config` start without loading any network
// library. Its entry (this struct, defined in the folder's *_entry.cpp) is
// either linked in as well (tests, the SMPI build: bind_driver) or lives in
// a loadable module, lib/evbench/libevbench-<module>.so, opened the first
// time the driver is probed or created (bind_driver_module,
// plugin_loader.cpp).
#include <memory>
#include <string>
#include <vector>

#include "drivers/api/registry.hpp"

namespace evb {

// A module built from another evbench build (other layouts of Config or of
// the entries) is refused rather than called: the entry carries the sizes
// of what crosses the boundary, the loader compares them with its own.
struct PluginAbi {
  int version = 1;
  size_t config_size = sizeof(Config);
  size_t driver_context_size = sizeof(DriverContext);
  size_t probe_size = sizeof(DriverProbe);
  friend bool operator==(const PluginAbi&, const PluginAbi&) = default;
};

struct DriverEntry {
  PluginAbi abi;
  DriverProbe (*probe)() = nullptr;
  std::unique_ptr<Driver> (*create)(const DriverContext&) = nullptr;
  // driver_options values checked against what the library offers
  // (transports, providers, devices; OptionCheck says how far): one message
  // per bad key, nothing started yet. May be null.
  std::vector<std::string> (*check_options)(const Config&, OptionCheck) = nullptr;
};

struct BootstrapEntry {
  PluginAbi abi;
  int (*launch)(const Config&, int nprocs, const WorkerFn& worker) = nullptr;
};

// Linked-in entries: fills the factory registered under `name`.
void bind_driver(PluginRegistry& registry, const std::string& name, const DriverEntry& entry);
void bind_bootstrap(PluginRegistry& registry, const std::string& name, const BootstrapEntry& entry);

// Module entries: the factory's functions open `module_file` (found by
// plugin_loader.cpp) on first use and call the entry `symbol` returns. A
// module that cannot be opened makes the probe say why (can_run false, the
// loader's message) and create / launch throw a ConfigError with it.
void bind_driver_module(PluginRegistry& registry, const std::string& name,
                        const std::string& module_file, const std::string& symbol);
void bind_bootstrap_module(PluginRegistry& registry, const std::string& name,
                           const std::string& module_file, const std::string& symbol);

}  // namespace evb
