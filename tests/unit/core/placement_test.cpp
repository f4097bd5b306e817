// Placement (core/placement.hpp): the CPU order and choice for `bind: core`,
// the CPU list format, the sysfs reading, binding, and the report's line.
#include "core/placement.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "core/error.hpp"

namespace evb {
namespace {

// Four CPUs on two cores of one package, the siblings numbered apart as
// Intel's usually are (0,2 on core 0; 1,3 on core 1) or adjacent (0,1; 2,3).
std::vector<CpuInfo> two_cores(bool adjacent) {
  std::vector<CpuInfo> out;
  for (int cpu = 0; cpu < 4; ++cpu) out.push_back({cpu, 0, adjacent ? cpu / 2 : cpu % 2});
  return out;
}

TEST(Placement, DistinctPhysicalCoresBeforeHyperthreads) {
  EXPECT_EQ(placement_order(two_cores(false)), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(placement_order(two_cores(true)), (std::vector<int>{0, 2, 1, 3}));
  EXPECT_EQ(choose_cpus(two_cores(true), 2), (std::vector<int>{0, 2}));
}

TEST(Placement, PackageByPackageThenCoreIds) {
  // Core ids repeat across packages and need not be dense.
  std::vector<CpuInfo> cpus = {{0, 0, 0}, {1, 0, 4}, {2, 1, 0}, {3, 1, 4}};
  EXPECT_EQ(placement_order(cpus), (std::vector<int>{0, 1, 2, 3}));
  std::vector<CpuInfo> shuffled = {{3, 1, 4}, {0, 0, 0}, {2, 1, 0}, {1, 0, 4}};
  EXPECT_EQ(placement_order(shuffled), (std::vector<int>{0, 1, 2, 3}));
}

TEST(Placement, AllowedSubsetWrapsRound) {
  // A cpuset giving CPUs 1 and 3 (different cores, say a Slurm allocation).
  const std::vector<CpuInfo> allowed = {{1, 0, 1}, {3, 0, 3}};
  EXPECT_EQ(choose_cpus(allowed, 5), (std::vector<int>{1, 3, 1, 3, 1}));
  EXPECT_EQ(choose_cpus(allowed, 1), (std::vector<int>{1}));
  EXPECT_TRUE(choose_cpus({}, 3).empty());
  // Two hyperthreads of one core: both are used before wrapping.
  const std::vector<CpuInfo> siblings = {{4, 0, 2}, {5, 0, 2}};
  EXPECT_EQ(choose_cpus(siblings, 3), (std::vector<int>{4, 5, 4}));
}

TEST(Placement, CpuListFormat) {
  EXPECT_EQ(cpu_list({3, 0, 1, 2, 6, 9, 8, 6}), "0-3,6,8-9");
  EXPECT_EQ(cpu_list({5}), "5");
  EXPECT_EQ(cpu_list({}), "");
}

TEST(Placement, SysfsIdsAndTheirAbsence) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("evb-placement-" + std::to_string(::getpid()));
  for (int cpu : {0, 1}) {
    std::filesystem::create_directories(dir / ("cpu" + std::to_string(cpu)) / "topology");
    std::ofstream(dir / ("cpu" + std::to_string(cpu)) / "topology" / "core_id") << "7\n";
    std::ofstream(dir / ("cpu" + std::to_string(cpu)) / "topology" / "physical_package_id")
        << cpu << "\n";
  }
  const std::vector<CpuInfo> got = cpu_topology({0, 1, 2}, dir.string());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].core, 7);
  EXPECT_EQ(got[1].package, 1);
  EXPECT_EQ(got[2].core, 2);  // no sysfs entry: a core of its own
  EXPECT_EQ(got[2].package, 0);
  // Without /sys at all every CPU is its own core: plain CPU order.
  EXPECT_EQ(choose_cpus(cpu_topology({0, 1, 2}, "/nonexistent"), 4),
            (std::vector<int>{0, 1, 2, 0}));
}

TEST(Placement, BindingOneThreadShowsInItsAffinity) {
  const std::vector<int> allowed = allowed_cpus();
  ASSERT_FALSE(allowed.empty());
  std::vector<int> seen;
  std::thread t([&] {
    bind_to_cpu(allowed.back());
    seen = allowed_cpus();
  });
  t.join();
  EXPECT_EQ(seen, std::vector<int>{allowed.back()});
  EXPECT_EQ(allowed_cpus(), allowed);  // this thread untouched
  EXPECT_THROW(bind_to_cpu(-1), Error);
}

TEST(Placement, DescribesWhatTheRanksFound) {
  const std::vector<std::string> h4(4, "a");
  EXPECT_EQ(describe_placement(Bind::core, "local", h4, {{0}, {1}, {0}, {1}}),
            "bound by evbench, one CPU per rank (cpus 0-1; 4 ranks on 2 CPUs: wrapped)");
  EXPECT_EQ(describe_placement(Bind::core, "local", {"a", "a"}, {{0}, {1}}),
            "bound by evbench, one CPU per rank (cpus 0-1)");
  // The same CPU on two hosts is two places: not wrapped.
  EXPECT_EQ(describe_placement(Bind::core, "env", {"a", "b"}, {{0}, {0}}),
            "bound by the launcher, one CPU per rank (cpus 0)");
  EXPECT_EQ(describe_placement(Bind::none, "local", {"a", "a"}, {{0, 1}, {0, 1}}),
            "unbound (each rank may run on cpus 0-1)");
  // A launcher that did not do what bind asks is named with the flags.
  const std::string unbound = describe_placement(Bind::core, "mpi", {"a", "a"}, {{0, 1}, {0, 1}});
  EXPECT_NE(unbound.find("unbound"), std::string::npos) << unbound;
  EXPECT_NE(unbound.find("--bind-to core"), std::string::npos) << unbound;
  EXPECT_NE(unbound.find("--cpu-bind=cores"), std::string::npos) << unbound;
  const std::string bound = describe_placement(Bind::none, "env", {"a", "a"}, {{0}, {1}});
  EXPECT_NE(bound.find("bind: none, but the launcher bound ranks"), std::string::npos) << bound;
  EXPECT_EQ(describe_placement(Bind::core, "mpi", {"a", "a", "a"}, {{0}, {0, 1}, {}}),
            "partly bound: 1 of 2 ranks on one CPU (cpus 0-1); bind: core, but the launcher did "
            "not bind every rank (mpirun --map-by core --bind-to core:overload-allowed, srun "
            "--cpu-bind=cores)");
  // Under the local bootstrap, bind none and one CPU each: one is all there was.
  EXPECT_EQ(describe_placement(Bind::none, "local", {"a", "a"}, {{3}, {3}}),
            "unbound (the process may use one CPU only: cpus 3)");
  EXPECT_EQ(describe_placement(Bind::core, "local", {}, {}), "unknown (no rank reported its CPUs)");
}

}  // namespace
}  // namespace evb
