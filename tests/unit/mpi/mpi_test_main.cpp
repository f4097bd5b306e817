// main() of evbench_mpi_tests: initialises MPI once for all tests.
//
// Runs under `mpirun -np N` (tests talk to every rank) and single-rank as a
// singleton (ctest's per-test runs). `--gtest_list_tests` (test discovery)
// and `--no-mpi-init` (the "not started by mpirun" checks) skip MPI_Init.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

#include "drivers/mpi/mpi_env.hpp"

namespace {

// Ranks other than 0 only report their failures, prefixed with the rank.
class FailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace

int main(int argc, char** argv) {
  bool init = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--gtest_list_tests") == 0) init = false;
    if (std::strcmp(argv[i], "--no-mpi-init") == 0) init = false;
  }
  ::testing::InitGoogleTest(&argc, argv);
  if (init) {
    evb::mpi::MpiEnv::ensure();
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // Only rank 0 prints the gtest report; the others print failures only.
    if (rank != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
      listeners.Append(new FailurePrinter(rank));
    }
  }
  int rc = RUN_ALL_TESTS();
  if (init) {
    // Every rank's verdict decides the exit code of every rank.
    int all = 0;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    rc = all;
  }
  return rc;
}
