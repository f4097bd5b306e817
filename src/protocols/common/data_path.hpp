#pragma once
// How a run moves fragment bytes on a given driver (`data_path`), asked by
// every protocol that sends point to point: the event builders
// (protocols/event_building) and the micro-benchmarks (protocols/microbench).
// It reads only the configuration and the driver's capabilities, so neither
// family needs the other's code to resolve it.
#include "core/config.hpp"
#include "drivers/api/driver.hpp"

namespace evb {

// Resolves data_path for `driver`: auto -> write when it has rdma_write and
// declares write the faster path for its variant (write_preferred), else send;
// write without rdma_write -> ConfigError naming the driver.
DataPath resolve_data_path(const Config& config, const Driver& driver);

}  // namespace evb
