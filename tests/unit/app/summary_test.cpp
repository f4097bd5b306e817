// The integrity accounting of a run's summary: every assigned event is built,
// corrupt, reported incomplete or lost, and nothing is built twice unnoticed.
#include <gtest/gtest.h>

#include <vector>

#include "apps/evbench/report.hpp"
#include "core/topology.hpp"

namespace evb {
namespace {

Config noevm(uint64_t events) {
  Config c;
  c.nodes = 2;
  c.parallel = 2;
  c.protocol = Protocol::pull_noevm;
  c.events = events;
  c.warmup_s = 0;
  return c;
}

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

// pull-noevm assigns statically: an event nobody built is lost, not ignored.
TEST(Summary, PullNoEvmEventNeverBuiltIsLost) {
  const Config c = noevm(10);
  const Summary s = summarize(c, make_topology(c), bus(5, 4));
  EXPECT_EQ(s.events_assigned, 10u);
  EXPECT_EQ(s.lost, 1u);
  EXPECT_FALSE(s.integrity_ok());
}

// More built than assigned is an event built twice, reported, not clamped away.
TEST(Summary, EventBuiltTwiceIsReported) {
  const Config c = noevm(10);
  Summary s = summarize(c, make_topology(c), bus(6, 5));
  EXPECT_EQ(s.duplicate_events, 1u);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_FALSE(s.integrity_ok());

  Config pull = c;
  pull.protocol = Protocol::pull;
  auto ranks = bus(6, 5);
  RankStats evm;
  evm.rank = 2;
  evm.evm = true;
  evm.events_assigned = 10;
  ranks.push_back(evm);
  s = summarize(pull, make_topology(pull), ranks);
  EXPECT_EQ(s.duplicate_events, 1u);
  EXPECT_FALSE(s.integrity_ok());
}

// Reported incomplete events are accounted for: not lost.
TEST(Summary, ReportedIncompleteIsNotLost) {
  const Config c = noevm(10);
  auto ranks = bus(5, 4);
  ranks[1].integrity.incomplete = 1;
  const Summary s = summarize(c, make_topology(c), ranks);
  EXPECT_EQ(s.incomplete, 1u);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_EQ(s.duplicate_events, 0u);

  const Summary ok = summarize(c, make_topology(c), bus(5, 5));
  EXPECT_TRUE(ok.integrity_ok());
  EXPECT_EQ(ok.lost, 0u);
}

}  // namespace
}  // namespace evb

namespace evb {
namespace {

// A one-to-one scan over 2 nodes: shift 0 (each node to itself) then shift 1.
std::vector<RankStats> scan_ranks() {
  std::vector<RankStats> r(2);
  for (int b = 0; b < 2; ++b) {
    r[b].rank = r[b].ru = r[b].bu = b;
    r[b].step_bytes = {1000000000, 125000};  // 1 s windows: 8 Gb/s, then 0.001 Gb/s
    r[b].step_messages = {1000, 2};
    r[b].step_window_s = {1.0, 1.0};
    r[b].events_built = 1002;
  }
  return r;
}

Config scan_config() {
  Config c;
  c.nodes = 2;
  c.protocol = Protocol::one_to_one;
  c.shift_scan = true;
  return c;
}

// Under sim, shift 0 has no route and costs nothing: it is left out, and the
// headline and the message count are shift 1's; a real run keeps it.
TEST(Summary, SimulatedShiftScanLeavesTheSelfShiftOut) {
  const Config c = scan_config();
  const Summary sim = summarize(c, make_topology(c), scan_ranks(), true);
  EXPECT_TRUE(sim.self_shift_left_out);
  ASSERT_EQ(sim.steps.size(), 1u);
  EXPECT_EQ(sim.steps[0].shift, 1);
  EXPECT_DOUBLE_EQ(sim.avg_gbps, 0.001);
  EXPECT_EQ(sim.events_built, 4u);
  EXPECT_DOUBLE_EQ(sim.events_per_second, 4.0);

  const Summary real = summarize(c, make_topology(c), scan_ranks(), false);
  EXPECT_FALSE(real.self_shift_left_out);
  ASSERT_EQ(real.steps.size(), 2u);
  EXPECT_EQ(real.steps[0].shift, 0);
  EXPECT_DOUBLE_EQ(real.avg_gbps, 8.0);
  EXPECT_EQ(real.events_built, 2004u);
}

}  // namespace
}  // namespace evb
