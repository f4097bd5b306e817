#include "bootstrap/mpi/mpi_bootstrap.hpp"

#include <cstdio>
#include <numeric>

#include "core/error.hpp"
#include "core/placement.hpp"
#include "drivers/api/plugin_entry.hpp"
#include "drivers/mpi/mpi_env.hpp"

namespace evb::mpi {
namespace {

// Byte counts and displacements for MPI_*v from per-rank lengths.
std::vector<int> displacements(const std::vector<int>& lengths) {
  std::vector<int> displs(lengths.size(), 0);
  for (size_t i = 1; i < lengths.size(); ++i) displs[i] = displs[i - 1] + lengths[i - 1];
  return displs;
}

std::vector<std::string> split(const std::vector<char>& all, const std::vector<int>& lengths,
                               const std::vector<int>& displs) {
  std::vector<std::string> out(lengths.size());
  for (size_t i = 0; i < lengths.size(); ++i) {
    out[i].assign(all.data() + displs[i], static_cast<size_t>(lengths[i]));
  }
  return out;
}

}  // namespace

MpiBootstrap::MpiBootstrap() {
  mpi::check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "bootstrap mpi: MPI_Comm_dup");
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  check(MPI_Get_processor_name(name, &len), "MPI_Get_processor_name");
  auto names = allgather(std::string(name, static_cast<size_t>(len)));
  for (const auto& n : names) all_local_ = all_local_ && n == names[0];
}

MpiBootstrap::~MpiBootstrap() {
  int finalized = 1;
  MPI_Finalized(&finalized);
  if (!finalized && comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

void MpiBootstrap::check(int rc, const char* what) const {
  if (rc != MPI_SUCCESS) {
    throw PeerError(rank_, "bootstrap mpi: rank " + std::to_string(rank_) + ": " + what + ": " +
                               error_string(rc));
  }
}

std::vector<std::string> MpiBootstrap::allgather(const std::string& mine) {
  int my_len = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<size_t>(size_));
  check(MPI_Allgather(&my_len, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm_), "MPI_Allgather");
  auto displs = displacements(lengths);
  std::vector<char> all(static_cast<size_t>(displs.back() + lengths.back()) + 1);
  check(MPI_Allgatherv(mine.data(), my_len, MPI_CHAR, all.data(), lengths.data(), displs.data(),
                       MPI_CHAR, comm_),
        "MPI_Allgatherv");
  return split(all, lengths, displs);
}

std::vector<std::string> MpiBootstrap::gather(const std::string& mine) {
  int my_len = static_cast<int>(mine.size());
  std::vector<int> lengths(rank_ == 0 ? static_cast<size_t>(size_) : 0);
  check(MPI_Gather(&my_len, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm_), "MPI_Gather");
  if (rank_ != 0) {
    check(MPI_Gatherv(mine.data(), my_len, MPI_CHAR, nullptr, nullptr, nullptr, MPI_CHAR, 0, comm_),
          "MPI_Gatherv");
    return {};
  }
  auto displs = displacements(lengths);
  std::vector<char> all(static_cast<size_t>(displs.back() + lengths.back()) + 1);
  check(MPI_Gatherv(mine.data(), my_len, MPI_CHAR, all.data(), lengths.data(), displs.data(),
                    MPI_CHAR, 0, comm_),
        "MPI_Gatherv");
  return split(all, lengths, displs);
}

void MpiBootstrap::barrier() {
  check(MPI_Barrier(comm_), "MPI_Barrier");
}

void MpiBootstrap::abort(const std::string& why) noexcept {
  std::fprintf(stderr, "evbench rank %d: aborting all ranks: %s\n", rank_, why.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, kExitRuntime);
}

int launch_mpi(const Config& config, int nprocs, const WorkerFn& worker) {
  const bool ours = !MpiEnv::initialized();
  if (ours) {
    int launched = launcher_world_size();
    if (launched < 0 && nprocs > 1) {
      throw ConfigError("bootstrap mpi needs ranks started by mpirun: run `" +
                        mpirun_with_binding(std::to_string(nprocs), config.bind) +
                        " evbench run CFG --set bootstrap=mpi`");
    }
    MpiEnv::ensure();
  }
  int world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (world != nprocs) {
    throw ConfigError("bootstrap mpi: MPI_COMM_WORLD has " + std::to_string(world) + " ranks but " +
                      config.source + " needs " + std::to_string(nprocs) + " processes (nodes=" +
                      std::to_string(config.nodes) + ", layout=" + to_string(config.layout) +
                      ", evm=" + to_string(config.evm) + ", protocol=" + config.protocol +
                      "; see docs/drivers/mpi.md): run `mpirun -np " + std::to_string(nprocs) +
                      " ...`");
  }
  // A rank that throws must not leave the others waiting in a collective:
  // at exit, MPI_Abort replaces MPI_Finalize (the launcher then ends the job).
  int code = kExitOk;
  try {
    MpiBootstrap bootstrap;
    code = worker(bootstrap);  // a non-zero code is a normal end: finalise
  } catch (const ConfigError&) {
    MpiEnv::request_abort(kExitUsage);
    throw;
  } catch (...) {
    MpiEnv::request_abort(kExitRuntime);
    throw;
  }
  // Simulated ranks (SMPI, started by `evbench sim`) finalise before their
  // main() returns; real processes at exit, so that one process may launch
  // several times (the conformance tests do).
  if (ours && simulated_launch()) MpiEnv::finish();
  return code;
}

}  // namespace evb::mpi

namespace evb {

const BootstrapEntry* evb_bootstrap_entry_mpi() {
  static const BootstrapEntry entry{.launch = mpi::launch_mpi};
  return &entry;
}

}  // namespace evb
