// main() of evbench_conformance_tests: the instantiation over every built
// driver and variant, the killed-peer child mode, and quiet non-zero ranks
// under mpirun.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "conformance_harness.hpp"

namespace evb::conformance {

INSTANTIATE_TEST_SUITE_P(conformance, DriverContract, testing::ValuesIn(all_variants()),
                         variant_name);

namespace {

// Under a launcher, ranks other than 0 only report their failures.
class FailurePrinter : public testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_,
                 r.file_name() ? r.file_name() : "?", r.line_number(), r.summary());
  }

 private:
  int rank_;
};

}  // namespace
}  // namespace evb::conformance

int main(int argc, char** argv) {
  if (argc >= 4 && std::strcmp(argv[1], "--conformance-child") == 0) {
    return evb::conformance::child_main(argv[2], std::atoi(argv[3]));
  }
  testing::InitGoogleTest(&argc, argv);
  if (int rank = evb::conformance::launcher_rank(); rank > 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new evb::conformance::FailurePrinter(rank));
  }
  return RUN_ALL_TESTS();
}
