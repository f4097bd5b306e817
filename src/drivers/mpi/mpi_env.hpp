#pragma once
// Process-wide MPI initialisation, shared by the mpi driver and the mpi
// bootstrap.
//
// MPI may be initialised once per process and never again after
// MPI_Finalize. MpiEnv::ensure() initialises it on first use (unless someone
// else already did) and finalises it at process exit only if evbench did the
// initialisation. If a rank fails after MPI is up, request_abort() makes the
// exit path call MPI_Abort instead of MPI_Finalize, so the other ranks (which
// may be blocked in a collective) are torn down by the launcher rather than
// left hanging.
#include <mpi.h>

#include <string>

namespace evb::mpi {

// The world size announced by a launcher in the environment (Open MPI,
// MPICH/Hydra, PMI, PMIx/Slurm), or -1 if this process was not started by one.
int launcher_world_size();

// True when `evbench sim` started this process under SMPI (EVBENCH_SMPI_NP
// set): its ranks share the process and must finalise before main() returns.
bool simulated_launch();

// Text of an MPI error code ("MPI_ERR_TRUNCATE: message truncated").
std::string error_string(int code);

// Throws evb::Error("<what>: <MPI error text>") unless rc == MPI_SUCCESS.
void check(int rc, const char* what);

class MpiEnv {
 public:
  // Initialises MPI (MPI_Init_thread, MPI_THREAD_FUNNELED requested) unless it
  // is already initialised. Throws evb::Error if MPI was already finalised or
  // initialisation fails.
  static void ensure();
  static bool initialized();
  // Thread level provided (MPI_Query_thread), or -1 before initialisation.
  static int thread_level();
  static const char* thread_level_name(int level);
  // Exit path: MPI_Abort(MPI_COMM_WORLD, code) instead of MPI_Finalize.
  static void request_abort(int code) noexcept;
  // Finalises (or aborts, after request_abort) now rather than at process
  // exit. For whoever called ensure() when MPI was not yet up; SMPI needs it
  // because its ranks share one process and must finalise before their
  // main() returns.
  static void finish() noexcept;
};

}  // namespace evb::mpi
