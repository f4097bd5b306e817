// Congestors (`background:`): who sends to whom in each pattern, the rank
// record rank 0 reads (strict: it came from a peer), and the merge into
// results.background[] (bytes, the window sent in, the rate).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/topology.hpp"
#include "protocols/background/congestor_plan.hpp"
#include "protocols/background/congestor_stats.hpp"

namespace evb {
namespace {

using Pattern = BackgroundSpec::Pattern;

BackgroundSpec spec(Pattern p, int shift = 1) {
  BackgroundSpec b;
  b.pattern = p;
  b.shift = shift;
  return b;
}

const std::vector<int> kMembers{10, 11, 12, 13};

TEST(CongestorPlan, IncastAndWriteIncastConvergeOnMemberZero) {
  for (Pattern p : {Pattern::incast, Pattern::write_incast}) {
    const CongestorPlan target = plan_congestor(spec(p), kMembers, 0);
    EXPECT_TRUE(target.targets.empty());
    EXPECT_EQ(target.sources, (std::vector<int>{11, 12, 13}));
    const CongestorPlan sender = plan_congestor(spec(p), kMembers, 2);
    EXPECT_EQ(sender.targets, (std::vector<int>{10}));
    EXPECT_TRUE(sender.sources.empty());
    EXPECT_EQ(sender.writes, p == Pattern::write_incast);
  }
}

TEST(CongestorPlan, BcastAlltoallAndShift) {
  EXPECT_EQ(plan_congestor(spec(Pattern::bcast), kMembers, 0).targets,
            (std::vector<int>{11, 12, 13}));
  EXPECT_EQ(plan_congestor(spec(Pattern::bcast), kMembers, 3).sources, (std::vector<int>{10}));
  const CongestorPlan all = plan_congestor(spec(Pattern::alltoall), kMembers, 1);
  EXPECT_EQ(all.targets, (std::vector<int>{10, 12, 13}));
  EXPECT_EQ(all.sources, all.targets);
  const CongestorPlan shifted = plan_congestor(spec(Pattern::one_to_one, 3), kMembers, 2);
  EXPECT_EQ(shifted.targets, (std::vector<int>{11}));  // (2 + 3) mod 4 = 1
  EXPECT_EQ(shifted.sources, (std::vector<int>{13}));  // (3 + 3) mod 4 = 2
}

TEST(CongestorCounts, RoundTripsAndRefusesWhatIsNotARecord) {
  CongestorCounts c;
  c.entry = 1;
  c.member = 2;
  c.messages = 7;
  c.bytes = 7 * 4096;
  c.first_ns = 100;
  c.last_ns = 900;
  const auto back = CongestorCounts::decode(c.encode());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->encode(), c.encode());
  EXPECT_FALSE(CongestorCounts::decode(""));
  EXPECT_FALSE(CongestorCounts::decode(c.encode() + " 5"));
  EXPECT_FALSE(CongestorCounts::decode("congestor 1 2 7"));
  EXPECT_FALSE(CongestorCounts::decode("congestor 1 2 7 28672 0 0 900 100"));  // ends first
}

TEST(MergeBackground, SumsSendersAndTakesTheirWindow) {
  Config c;
  c.nodes = 2;
  c.background = {spec(Pattern::incast)};
  c.background[0].ranks = 3;
  c.background[0].size = 1000;
  const Topology t = make_topology(c);
  std::vector<RankStats> ranks;
  const int64_t first[] = {0, 2'000'000, 1'000'000};
  const int64_t last[] = {0, 9'000'000, 11'000'000};
  for (int m = 0; m < 3; ++m) {
    CongestorCounts k;
    k.member = m;
    k.messages = m == 0 ? 0 : 5;
    k.bytes = k.messages * 1000;
    k.first_ns = first[m];
    k.last_ns = last[m];
    RankStats r;
    r.rank = t.nprocs + m;
    r.own = k.encode();
    ranks.push_back(r);
  }
  const auto out = merge_background(c, t, ranks);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].ranks_reported, 3);
  EXPECT_EQ(out[0].messages, 10u);
  EXPECT_EQ(out[0].bytes, 10'000u);
  EXPECT_DOUBLE_EQ(out[0].start_s, 0.001);  // the earliest sender's first
  EXPECT_DOUBLE_EQ(out[0].stop_s, 0.011);   // the latest sender's last
  EXPECT_NEAR(out[0].gbps, 10'000.0 * 8 / 0.010 * 1e-9, 1e-12);
  ranks[1].own = "congestor 0 0 5 5000 0 0 1 2";  // member 0 claimed by rank nprocs + 1
  EXPECT_THROW(merge_background(c, t, ranks), Error);
}

}  // namespace
}  // namespace evb
