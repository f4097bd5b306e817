#pragma once
// The `evbench` command line: run, validate, drivers, config.
#include "core/config_table.hpp"
#include "drivers/api/registry.hpp"
#include "protocols/api/protocol_registry.hpp"

namespace evb {
int cli_main(int argc, char** argv);

// The plug-ins built into this binary: drivers and bootstraps (whose
// libraries are opened as modules on first use) and protocols. Owned by
// cli_main and passed down.
struct Plugins {
  PluginRegistry drivers;
  ProtocolRegistry protocols;
};

// What the config loader learns from the registered plug-ins: driver and
// bootstrap names, each driver's option table and its capabilities before
// start (DriverFactory::query), each protocol's keys, traits and rules.
PluginKeys plugin_keys(const PluginRegistry& registry, const ProtocolRegistry& protocols);
}  // namespace evb
