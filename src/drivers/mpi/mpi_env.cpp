#include "drivers/mpi/mpi_env.hpp"

#include <atomic>
#include <cstdlib>

#include "core/error.hpp"

namespace evb::mpi {
namespace {

std::atomic<int> g_abort_code{-1};

// Finalises (or aborts) at static destruction if ensure() initialised MPI
// and nobody called MpiEnv::finish() before.
class Finalizer {
 public:
  ~Finalizer() { MpiEnv::finish(); }
};

}  // namespace

int launcher_world_size() {
  // Open MPI's mpirun, MPICH/Hydra (PMI-1/2), then `evbench sim` (smpirun
  // sets nothing of its own; the simulated ranks share one process).
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "EVBENCH_SMPI_NP"}) {
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') return std::atoi(v);
  }
  // PMIx launchers (srun --mpi=pmix, prterun) set PMIX_RANK; the size then
  // comes from the PMIx server: "launched, size unknown".
  if (std::getenv("PMIX_RANK") != nullptr || std::getenv("PMI_RANK") != nullptr) return 0;
  return -1;
}

bool simulated_launch() {
  const char* v = std::getenv("EVBENCH_SMPI_NP");
  return v != nullptr && *v != '\0';
}

std::string error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) {
    return "MPI error " + std::to_string(code);
  }
  return std::string(text, static_cast<size_t>(len));
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(std::string(what) + ": " + error_string(rc));
}

bool MpiEnv::initialized() {
  int init = 0;
  MPI_Initialized(&init);
  return init != 0;
}

void MpiEnv::ensure() {
  if (initialized()) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) throw Error("MPI was already finalized in this process; it cannot be restarted");
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  static Finalizer finalizer;  // destroyed at exit, after main() returns
  (void)finalizer;
}

int MpiEnv::thread_level() {
  if (!initialized()) return -1;
  int level = -1;
  MPI_Query_thread(&level);
  return level;
}

const char* MpiEnv::thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
      return "MPI_THREAD_MULTIPLE";
    default:
      return "unknown";
  }
}

void MpiEnv::finish() noexcept {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized || !initialized()) return;
  int code = g_abort_code.load();
  if (code >= 0) {
    MPI_Abort(MPI_COMM_WORLD, code);
  } else {
    MPI_Finalize();
  }
}

void MpiEnv::request_abort(int code) noexcept {
  g_abort_code.store(code < 0 ? 1 : code);
}

}  // namespace evb::mpi
