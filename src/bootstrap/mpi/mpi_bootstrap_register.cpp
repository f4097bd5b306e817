// Describes the mpi bootstrap to the plug-in registry. Its library half
// (launch) is evb_bootstrap_entry_mpi() in mpi_bootstrap.cpp, in the mpi
// module with the mpi driver (they share MPI's init guard, MpiEnv).
#include "drivers/api/registry.hpp"

namespace evb {

void evb_register_bootstrap_mpi(PluginRegistry& registry) {
  registry.add_bootstrap(BootstrapFactory{
      .name = "mpi",
      .summary = "ranks started by mpirun / srun --mpi=pmix; MPI collectives for start-up",
      .survives_rank_loss = false,
      .loss_note =
          "bootstrap mpi gathers the results with MPI collectives in MPI_COMM_WORLD, and the "
          "MPI library ends the whole job when a rank dies (Open MPI 4.1's mpirun kills every "
          "rank; no fault-tolerant MPI, ULFM, is used); run the ranks with bootstrap env "
          "(srun, or mpirun starting env ranks) to survive a lost rank",
  });
}

}  // namespace evb
