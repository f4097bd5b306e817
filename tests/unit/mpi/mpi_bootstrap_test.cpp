// The mpi bootstrap's collectives over real MPI ranks.
#include "bootstrap/mpi/mpi_bootstrap.hpp"

#include <stdexcept>

#include "core/error.hpp"
#include "drivers/api/plugin_entry.hpp"
#include "mpi_test_util.hpp"

namespace evb {
void evb_register_bootstrap_mpi(PluginRegistry&);
const BootstrapEntry* evb_bootstrap_entry_mpi();

// The mpi bootstrap as evbench registers it: description, then its entry
// (linked in here; a module in evbench).
void register_mpi_bootstrap(PluginRegistry& reg) {
  evb_register_bootstrap_mpi(reg);
  bind_bootstrap(reg, "mpi", *evb_bootstrap_entry_mpi());
}
}  // namespace evb

namespace evb::mpi::test {
namespace {

// Contributions of different lengths, one of them empty.
std::string contribution(int rank) {
  return rank == 1 ? std::string()
                   : "rank" + std::to_string(rank) + std::string(size_t(rank) * 37, 'x');
}

TEST(MpiBootstrap, RankSizeAndAllLocal) {
  MpiBootstrap b;
  EXPECT_EQ(b.rank(), world_rank());
  EXPECT_EQ(b.size(), world_size());
  EXPECT_TRUE(b.all_local());  // tests run on one host
}

TEST(MpiBootstrap, AllgatherGivesEveryContributionByRank) {
  MpiBootstrap b;
  auto all = b.allgather(contribution(b.rank()));
  ASSERT_EQ(all.size(), size_t(b.size()));
  for (int r = 0; r < b.size(); ++r) EXPECT_EQ(all[size_t(r)], contribution(r));
  // Binary bytes survive.
  std::string bin("\0\xff\x01", 3);
  auto again = b.allgather(bin);
  for (const auto& s : again) EXPECT_EQ(s, bin);
}

TEST(MpiBootstrap, GatherOnlyRankZeroGetsAll) {
  MpiBootstrap b;
  auto all = b.gather(contribution(b.rank()));
  if (b.rank() == 0) {
    ASSERT_EQ(all.size(), size_t(b.size()));
    for (int r = 0; r < b.size(); ++r) EXPECT_EQ(all[size_t(r)], contribution(r));
  } else {
    EXPECT_TRUE(all.empty());
  }
}

TEST(MpiBootstrap, BarrierSeparatesPhases) {
  MpiBootstrap b;
  // Everyone posts a value before the barrier; afterwards all are visible
  // through a second collective without ordering surprises.
  for (int round = 0; round < 5; ++round) {
    b.barrier();
    auto all = b.allgather(std::to_string(round * 100 + b.rank()));
    for (int r = 0; r < b.size(); ++r) EXPECT_EQ(all[size_t(r)], std::to_string(round * 100 + r));
  }
}

TEST(MpiBootstrap, LaunchRunsWorkerOnce) {
  PluginRegistry reg;
  register_mpi_bootstrap(reg);
  const BootstrapFactory* f = reg.bootstrap("mpi");
  ASSERT_NE(f, nullptr);
  Config cfg;
  int calls = 0;
  int code = f->launch(cfg, world_size(), [&](Bootstrap& b) {
    ++calls;
    EXPECT_EQ(b.rank(), world_rank());
    auto names = b.allgather("r" + std::to_string(b.rank()));
    EXPECT_EQ(names.back(), "r" + std::to_string(b.size() - 1));
    return 7;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(code, 7);
}

TEST(MpiBootstrap, LaunchWithWrongProcessCountIsAConfigError) {
  PluginRegistry reg;
  register_mpi_bootstrap(reg);
  Config cfg;
  cfg.source = "test.yaml";
  try {
    reg.bootstrap("mpi")->launch(cfg, world_size() + 2, [](Bootstrap&) { return 0; });
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(std::to_string(world_size()) + " ranks"), std::string::npos) << what;
    EXPECT_NE(what.find("needs " + std::to_string(world_size() + 2) + " processes"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("nodes=4"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace evb::mpi::test
