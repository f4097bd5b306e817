// Describes the mpi bootstrap to the plug-in registry. Its library half
// (launch) is evb_bootstrap_entry_mpi() in mpi_bootstrap.cpp, in the mpi
// module with the mpi driver (they share MPI's init guard, MpiEnv).
#include "drivers/api/registry.hpp"

namespace evb {

void evb_register_bootstrap_mpi(PluginRegistry& registry) {
  registry.add_bootstrap(BootstrapFactory{
      .name = "mpi",
      .summary = "ranks started by mpirun / srun --mpi=pmix; MPI collectives for start-up",
  });
}

}  // namespace evb
