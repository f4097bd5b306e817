#pragma once
// The `evbench` command line: run, validate, drivers, config.
#include "core/config_table.hpp"
#include "drivers/api/registry.hpp"

namespace evb {
int cli_main(int argc, char** argv);

// What the config loader learns from the registered plug-ins: driver and
// bootstrap names, each driver's option table and its capabilities before
// start (DriverFactory::query), and which keys each protocol reads.
PluginKeys plugin_keys(const PluginRegistry& registry);
}  // namespace evb
