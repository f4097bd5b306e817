#pragma once
// The mpi bootstrap: the ranks are the processes mpirun (or srun --mpi=pmix)
// started; rank/size come from MPI_COMM_WORLD and the collectives run on a
// private duplicate of it. Any driver can run under it (MPI is then only used
// for start-up and teardown). Owns its communicator; MPI itself belongs to
// MpiEnv.
#include <mpi.h>

#include "core/config.hpp"
#include "drivers/api/bootstrap.hpp"
#include "drivers/api/registry.hpp"

namespace evb::mpi {

class MpiBootstrap final : public Bootstrap {
 public:
  // Collective over MPI_COMM_WORLD. MPI must be initialised.
  MpiBootstrap();
  ~MpiBootstrap() override;
  MpiBootstrap(const MpiBootstrap&) = delete;
  MpiBootstrap& operator=(const MpiBootstrap&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  bool all_local() const override { return all_local_; }
  std::vector<std::string> allgather(const std::string& mine) override;
  std::vector<std::string> gather(const std::string& mine) override;
  void barrier() override;
  void abort(const std::string& why) noexcept override;

 private:
  void check(int rc, const char* what) const;

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  bool all_local_ = true;
};

// BootstrapFactory::launch of "mpi": joins the run, checks the world size
// against `nprocs`, runs `worker` once in this process.
int launch_mpi(const Config& config, int nprocs, const WorkerFn& worker);

}  // namespace evb::mpi
