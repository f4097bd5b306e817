// The summary of a run of multi-event fragments (fragment.events = p): what
// the ranks counted were MEPs; the summary's event figures are p x theirs,
// the MEPs' own kept beside, and the accounting still adds up.
#include <gtest/gtest.h>

#include <vector>

#include "core/topology.hpp"
#include "protocols/event_building/event_building_status.hpp"
#include "summarize.hpp"

namespace evb {
namespace {

// pull-noevm with MEPs of `p`, building `events` events (events / p MEPs).
Config noevm_meps(uint32_t p, uint64_t events) {
  Config c;
  c.nodes = 2;
  c.protocol = "pull-noevm";
  c.with_evm = false;
  c.events = events;
  c.warmup_s = 0;
  c.fragment.events = p;
  return c;
}

// Two BUs that built `built0` and `built1` MEPs of 1000 B each in 1 ms.
std::vector<RankStats> bus(uint64_t built0, uint64_t built1) {
  std::vector<RankStats> r(2);
  for (int b = 0; b < 2; ++b) {
    r[b].rank = b;
    r[b].bu = b;
    r[b].events_built = b ? built1 : built0;
    r[b].events_started = r[b].events_built;
    r[b].bytes_total = r[b].bytes_in_window = 1000 * r[b].events_built;
    r[b].events_in_window = r[b].events_built;
    r[b].last_completion_ns = 1000000;
  }
  return r;
}

TEST(MepSummary, EventsArePTimesMeps) {
  const Config c = noevm_meps(4, 40);
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), bus(5, 5));
  EXPECT_EQ(s.packing_factor, 4u);
  EXPECT_EQ(s.meps_assigned, 10u);
  EXPECT_EQ(s.meps_built, 10u);
  EXPECT_EQ(s.events_assigned, 40u);
  EXPECT_EQ(s.events_built, 40u);
  EXPECT_GT(s.meps_per_second, 0);
  EXPECT_DOUBLE_EQ(s.events_per_second, 4 * s.meps_per_second);
  EXPECT_TRUE(integrity_ok(s));
}

// A MEP nobody built loses its p events, not one.
TEST(MepSummary, AMepNeverBuiltLosesItsEvents) {
  const Config c = noevm_meps(4, 40);
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), bus(5, 4));
  EXPECT_EQ(s.meps_built, 9u);
  EXPECT_EQ(s.events_built, 36u);
  EXPECT_EQ(s.lost, 4u);
  EXPECT_FALSE(integrity_ok(s));
}

// p = 1: the MEP figures equal the event figures.
TEST(MepSummary, OneEventPerFragmentChangesNothing) {
  const Config c = noevm_meps(1, 10);
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), bus(5, 5));
  EXPECT_EQ(s.packing_factor, 1u);
  EXPECT_EQ(s.events_built, 10u);
  EXPECT_EQ(s.meps_built, 10u);
  EXPECT_DOUBLE_EQ(s.events_per_second, s.meps_per_second);
}

}  // namespace
}  // namespace evb
