// The local launcher's placement (`bind`): under core each forked rank runs
// on the one CPU core/placement.hpp chose for it, unless ranks outnumber the
// CPUs (then none is bound); under none on every CPU the launcher may use.
#include <gtest/gtest.h>

#include "bootstrap/local_launcher.hpp"
#include "core/placement.hpp"
#include "test_util.hpp"

namespace evb::boot {
namespace {

using test::no_children;
using test::test_config;

// Runs launch_local with `bind` and `n` ranks; each rank's exit status says
// whether its CPUs are what `expected` says for it (0) or not (20).
int launch_checking(Bind bind, int n, const std::vector<std::vector<int>>& expected) {
  Config c = test_config();
  c.bind = bind;
  return launch_local(c, n, [&expected](Bootstrap& b) {
    return allowed_cpus() == expected[static_cast<size_t>(b.rank())] ? 0 : 20;
  });
}

TEST(LocalLauncherBind, CoreGivesEachRankItsChosenCpu) {
  const int n = static_cast<int>(allowed_cpus().size());  // one rank per CPU
  const std::vector<int> plan = choose_cpus(cpu_topology(allowed_cpus()), n);
  ASSERT_EQ(plan.size(), static_cast<size_t>(n));
  std::vector<std::vector<int>> expected;
  for (int cpu : plan) expected.push_back({cpu});
  EXPECT_EQ(launch_checking(Bind::core, n, expected), 0);
  EXPECT_TRUE(no_children());
}

TEST(LocalLauncherBind, CoreBindsNoneWhenRanksOutnumberTheCpus) {
  const int n = static_cast<int>(allowed_cpus().size()) + 1;  // would wrap: left to the kernel
  const std::vector<std::vector<int>> expected(static_cast<size_t>(n), allowed_cpus());
  EXPECT_EQ(launch_checking(Bind::core, n, expected), 0);
  EXPECT_TRUE(no_children());
}

TEST(LocalLauncherBind, NoneLeavesEveryAllowedCpu) {
  const std::vector<std::vector<int>> expected(3, allowed_cpus());
  EXPECT_EQ(launch_checking(Bind::none, 3, expected), 0);
  EXPECT_TRUE(no_children());
}

}  // namespace
}  // namespace evb::boot
