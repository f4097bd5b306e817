// Describes the mpi driver to the plug-in registry: name, options, limits.
// Its library half (probe, create) is mpi_entry.cpp (plugin_entry.hpp).
#include "drivers/api/registry.hpp"
#include "drivers/mpi/mpi_driver.hpp"

namespace evb {

void evb_register_driver_mpi(PluginRegistry& registry) {
  registry.add_driver(DriverFactory{
      .name = "mpi",
      .summary = "MPI non-blocking point-to-point (Isend/Issend/Irecv, Testsome)",
      .options = mpi::mpi_option_keys(),
      .max_segments = mpi::MpiDriver::kMaxSegments,
      .has_alltoall = true,
  });
}

}  // namespace evb
