#pragma once
// The life of one rank: create the driver, exchange addresses, build the
// units this rank hosts, run the protocol, gather statistics to rank 0, which
// reports. Returns the rank's exit code.
#include "apps/evbench/run_options.hpp"
#include "core/config.hpp"
#include "drivers/api/bootstrap.hpp"
#include "drivers/api/registry.hpp"

namespace evb {

int run_worker(const Config& config, const PluginRegistry& plugins, Bootstrap& bootstrap,
               const RunOptions& options);

}  // namespace evb
