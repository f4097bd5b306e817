// The RU rings in a run's summary (on_failure exclude): a ring overrun is an
// integrity error named by its RU's first problem, and the bounds report
// the most events a ring held against its slots.
#include <gtest/gtest.h>

#include <vector>

#include "core/ring_geometry.hpp"
#include "core/topology.hpp"
#include "protocols/event_building/event_building_status.hpp"
#include "summarize.hpp"

namespace evb {
namespace {

Config excluding() {
  Config c;
  c.nodes = 2;
  c.parallel = 2;
  c.layout = Layout::split;
  c.on_failure = OnFailure::exclude;
  c.events = 10;
  c.warmup_s = 0;
  return c;
}

// One unit per rank (RUs, BUs, the EVM: the summary goes by the units a
// rank reports, not by its number); every event built.
std::vector<EventBuildingRank> ranks(uint64_t overrun) {
  std::vector<EventBuildingRank> r(5);
  for (int i = 0; i < 5; ++i) r[i].rank = i;
  for (int n = 0; n < 2; ++n) {
    r[n].ru = n;
    r[n].max_events_held = 3 + n;
    r[2 + n].bu = n;
    r[2 + n].events_built = 5;
    r[2 + n].events_started = 5;
    r[2 + n].events_in_window = 5;
    r[2 + n].last_completion_ns = 1000000;
  }
  r[1].ring_overrun = overrun;
  if (overrun) r[1].integrity_problem = "RU 1: ring overrun: event 9 needs ring slot 1";
  r[4].evm = true;
  r[4].events_assigned = 10;
  r[4].assignments_held_back = 7;
  return r;
}

TEST(RingSummary, BoundsReportTheRings) {
  const Config c = excluding();
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), ranks(0));
  EXPECT_TRUE(integrity_ok(s));
  EXPECT_EQ(s.ring_overrun, 0u);
  EXPECT_EQ(s.max_events_held, 4u);
  EXPECT_EQ(s.ring_slots, min_ring_slots(c));
  EXPECT_EQ(s.assignments_held_back, 7u);
}

TEST(RingSummary, AnOverrunIsAnIntegrityErrorNamedByItsRu) {
  const Config c = excluding();
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), ranks(2));
  EXPECT_FALSE(integrity_ok(s));
  EXPECT_EQ(s.ring_overrun, 2u);
  EXPECT_EQ(s.integrity_problem, "RU 1: ring overrun: event 9 needs ring slot 1");
  EXPECT_EQ(s.lost, 0u);
}

}  // namespace
}  // namespace evb
