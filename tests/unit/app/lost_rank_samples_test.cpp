// A rank lost under on_failure exclude takes its own samples with it: the
// summary names it (lost_ranks) and takes the rate over time from the EVM's
// books instead, so the rate before the fault is not missing that rank's
// share. Without a loss the builders' samples stay.
#include <gtest/gtest.h>

#include <vector>

#include "core/topology.hpp"
#include "summarize.hpp"

namespace evb {
namespace {

Config exclude_config() {
  Config c;
  c.nodes = 2;
  c.layout = Layout::split;
  c.evm = EvmPlacement::dedicated;
  c.protocol = "pull";
  c.on_failure = OnFailure::exclude;
  c.events = 100;
  c.warmup_s = 0;
  return c;
}

// Ranks of 2 nodes split with a dedicated EVM: RU0, BU0, RU1, BU1, EVM (4).
// BU 1 (rank 3) built 40 events; each builder sampled 1000 bytes per interval.
std::vector<EventBuildingRank> all_ranks() {
  std::vector<EventBuildingRank> r(5);
  for (int q = 0; q < 5; ++q) r[q].rank = q;
  r[0].ru = 0;
  r[2].ru = 1;
  r[1].bu = 0;
  r[3].bu = 1;
  for (int q : {1, 3}) {
    r[q].events_built = r[q].events_started = r[q].events_in_window = 50;
    r[q].last_completion_ns = 1000000;
    r[q].sample_bytes = {1000, 1000};
    r[q].sample_events = {25, 25};
  }
  r[4].evm = true;
  r[4].events_assigned = 100;
  r[4].evm_sample_bytes = {2000, 2000};
  r[4].evm_sample_events = {50, 50};
  return r;
}

TEST(LostRankSamples, WithoutALossTheBuildersSamplesStay) {
  const Config c = exclude_config();
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), all_ranks());
  EXPECT_TRUE(s.lost_ranks.empty());
  EXPECT_EQ(s.samples_from, "builders");
  EXPECT_EQ(s.sample_bytes, (std::vector<uint64_t>{2000, 2000}));
}

TEST(LostRankSamples, ALostRankIsNamedAndTheEvmsSamplesStandIn) {
  const Config c = exclude_config();
  std::vector<EventBuildingRank> r = all_ranks();
  r.erase(r.begin() + 3);                // BU 1's rank: lost, nothing gathered from it
  r[3].evm_sample_bytes = {2000, 1000};  // the EVM saw BU 1's bytes before the loss
  r[3].evm_sample_events = {50, 25};
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), r);
  EXPECT_EQ(s.lost_ranks, (std::vector<int>{3}));
  EXPECT_EQ(s.ranks_lost, 1);
  EXPECT_EQ(s.samples_from, "evm");
  EXPECT_EQ(s.sample_bytes, (std::vector<uint64_t>{2000, 1000}));
  EXPECT_EQ(s.sample_events, (std::vector<uint64_t>{50, 25}));
}

}  // namespace
}  // namespace evb
