// The integrity accounting of a run's summary: every assigned event is built,
// corrupt, reported incomplete or lost, and nothing is built twice unnoticed.
#include <gtest/gtest.h>

#include <vector>

#include "core/topology.hpp"
#include "protocols/event_building/event_building_status.hpp"
#include "summarize.hpp"

namespace evb {
namespace {

Config noevm(uint64_t events) {
  Config c;
  c.nodes = 2;
  c.parallel = 2;
  c.protocol = "pull-noevm";
  c.with_evm = false;  // what the loader sets from the protocol's factory
  c.events = events;
  c.warmup_s = 0;
  return c;
}

std::vector<EventBuildingRank> bus(uint64_t built0, uint64_t built1) {
  std::vector<EventBuildingRank> r(2);
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
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), bus(5, 4));
  EXPECT_EQ(s.events_assigned, 10u);
  EXPECT_EQ(s.lost, 1u);
  EXPECT_FALSE(integrity_ok(s));
}

// More built than assigned is an event built twice, reported, not clamped away.
TEST(Summary, EventBuiltTwiceIsReported) {
  const Config c = noevm(10);
  auto s = summarize<EventBuildingSummary>(c, make_topology(c), bus(6, 5));
  EXPECT_EQ(s.duplicate_events, 1u);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_FALSE(integrity_ok(s));

  Config pull = c;
  pull.protocol = "pull";
  auto ranks = bus(6, 5);
  EventBuildingRank evm;
  evm.rank = 2;
  evm.evm = true;
  evm.events_assigned = 10;
  ranks.push_back(evm);
  s = summarize<EventBuildingSummary>(pull, make_topology(pull), ranks);
  EXPECT_EQ(s.duplicate_events, 1u);
  EXPECT_FALSE(integrity_ok(s));
}

// Reported incomplete events are accounted for: not lost.
TEST(Summary, ReportedIncompleteIsNotLost) {
  const Config c = noevm(10);
  auto ranks = bus(5, 4);
  ranks[1].integrity.incomplete = 1;
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), ranks);
  EXPECT_EQ(s.incomplete, 1u);
  EXPECT_EQ(s.lost, 0u);
  EXPECT_EQ(s.duplicate_events, 0u);

  const auto ok = summarize<EventBuildingSummary>(c, make_topology(c), bus(5, 5));
  EXPECT_TRUE(integrity_ok(ok));
  EXPECT_EQ(ok.lost, 0u);
}

}  // namespace
}  // namespace evb

namespace evb {
namespace {

// A one-to-one scan over 2 nodes: shift 0 (each node to itself) then shift 1.
std::vector<MicrobenchRank> scan_ranks() {
  std::vector<MicrobenchRank> r(2);
  for (int b = 0; b < 2; ++b) {
    r[b].rank = r[b].ru = r[b].bu = b;
    r[b].step_bytes = {1000000000, 125000};  // 1 s windows: 8 Gb/s, then 0.001 Gb/s
    r[b].step_network_bytes = {0, 125000};   // shift 0 never left the node
    r[b].step_messages = {1000, 2};
    r[b].step_window_s = {1.0, 1.0};
    r[b].events_built = 1002;
  }
  return r;
}

Config scan_config() {
  Config c;
  c.nodes = 2;
  c.protocol = "one-to-one";
  c.with_evm = false;  // what the loader sets from the protocol's factory
  c.shift_scan = true;
  return c;
}

// Under sim, shift 0 has no route and costs nothing: it is left out, and the
// headline and the message count are shift 1's; a real run keeps it in
// `steps`, flagged as a local copy, but its headline is shift 1's too.
TEST(Summary, SimulatedShiftScanLeavesTheSelfShiftOut) {
  const Config c = scan_config();
  const auto sim = summarize<MicrobenchSummary>(c, make_topology(c), scan_ranks(), true);
  EXPECT_TRUE(sim.self_shift_left_out);
  ASSERT_EQ(sim.steps.size(), 1u);
  EXPECT_EQ(sim.steps[0].shift, 1);
  EXPECT_DOUBLE_EQ(sim.avg_gbps, 0.001);
  EXPECT_EQ(sim.events_built, 4u);
  EXPECT_DOUBLE_EQ(sim.events_per_second, 4.0);

  const auto real = summarize<MicrobenchSummary>(c, make_topology(c), scan_ranks(), false);
  EXPECT_FALSE(real.self_shift_left_out);
  ASSERT_EQ(real.steps.size(), 2u);
  EXPECT_EQ(real.steps[0].shift, 0);
  EXPECT_TRUE(real.steps[0].local_copy);
  EXPECT_FALSE(real.steps[1].local_copy);
  EXPECT_EQ(real.steps[0].per_node, (std::vector<double>{8.0, 8.0}));
  EXPECT_DOUBLE_EQ(real.avg_gbps, 0.001);
  EXPECT_DOUBLE_EQ(real.network_avg_gbps, 0.001);
  EXPECT_DOUBLE_EQ(real.events_per_second, 4.0);
  EXPECT_FALSE(real.headline_local_copy);
  EXPECT_EQ(real.events_built, 2004u);
}

// The headline of a scan is the mean over its network shifts 1..N-1, per
// node and for the aggregate.
TEST(Summary, ShiftScanHeadlineIsTheMeanOfTheNetworkShifts) {
  Config c = scan_config();
  c.nodes = 3;
  std::vector<MicrobenchRank> r(3);
  for (int b = 0; b < 3; ++b) {
    r[b].rank = r[b].ru = r[b].bu = b;
    // 1 s windows: 80 Gb/s local, then 2 and 4 Gb/s (node 2: 6 and 4)
    r[b].step_bytes = {10000000000, b == 2 ? 750000000u : 250000000u, 500000000};
    r[b].step_network_bytes = {0, r[b].step_bytes[1], r[b].step_bytes[2]};
    r[b].step_messages = {10, 1, 2};
    r[b].step_window_s = {1.0, 1.0, 1.0};
  }
  const auto s = summarize<MicrobenchSummary>(c, make_topology(c), r, false);
  ASSERT_EQ(s.steps.size(), 3u);
  EXPECT_EQ(s.per_node_gbps, (std::vector<double>{3.0, 3.0, 5.0}));
  EXPECT_EQ(s.network_per_node_gbps, s.per_node_gbps);
  EXPECT_DOUBLE_EQ(s.max_gbps, 5.0);
  EXPECT_DOUBLE_EQ(s.aggregate_gbps, (10.0 + 12.0) / 2);
  EXPECT_EQ(s.headline_steps, 2);
}

// One node: shift 0 is all there is; it stays the headline, flagged, and
// its network figure is 0.
TEST(Summary, OneNodeScanHeadlineIsFlaggedAsALocalCopy) {
  Config c = scan_config();
  c.nodes = 1;
  std::vector<MicrobenchRank> r(1);
  r[0].ru = r[0].bu = 0;
  r[0].step_bytes = {1000000000};
  r[0].step_network_bytes = {0};
  r[0].step_messages = {10};
  r[0].step_window_s = {1.0};
  const auto s = summarize<MicrobenchSummary>(c, make_topology(c), r, false);
  EXPECT_TRUE(s.headline_local_copy);
  EXPECT_DOUBLE_EQ(s.avg_gbps, 8.0);
  EXPECT_DOUBLE_EQ(s.network_avg_gbps, 0.0);
  ASSERT_EQ(s.steps.size(), 1u);
  EXPECT_TRUE(s.steps[0].local_copy);
}

// Event builders: the network figure counts what the BUs booked as coming
// from other nodes.
TEST(Summary, EventBuildingNetworkFigureLeavesTheOwnFragmentOut) {
  Config c = noevm(10);
  c.events = 0;
  c.duration_s = 1;
  std::vector<EventBuildingRank> r = bus(5, 5);
  for (EventBuildingRank& x : r) x.network_bytes_in_window = x.bytes_in_window / 2;
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), r);
  EXPECT_DOUBLE_EQ(s.network_aggregate_gbps, s.aggregate_gbps / 2);
  EXPECT_EQ(s.network_per_node_gbps.size(), 2u);
}

// What a rank sends rank 0 keeps the network byte counts (each protocol's
// own part, RankStats::own).
TEST(OwnStatsWire, NetworkBytesSurviveSerialization) {
  EventBuildingStats a;
  a.network_bytes_in_window = 123456789012ull;
  a.network_bytes_total = 223456789012ull;
  const auto b = decode_record<EventBuildingStats>(encode_record(a));
  EXPECT_EQ(b.network_bytes_in_window, a.network_bytes_in_window);
  EXPECT_EQ(b.network_bytes_total, a.network_bytes_total);
  MicrobenchStats m;
  m.step_network_bytes = {0, 7, 9};
  EXPECT_EQ(decode_record<MicrobenchStats>(encode_record(m)).step_network_bytes,
            m.step_network_bytes);
}

// EventBuildingStats::book counts the network part of an event apart, in the window
// only for the window counter.
TEST(OwnStatsWire, BookSplitsNetworkBytes) {
  EventBuildingStats r;
  r.book(5, 100, 75, 1, 10, 0, 0);   // inside the warm-up
  r.book(20, 100, 75, 1, 10, 0, 0);  // in the window
  EXPECT_EQ(r.bytes_total, 200u);
  EXPECT_EQ(r.network_bytes_total, 150u);
  EXPECT_EQ(r.bytes_in_window, 100u);
  EXPECT_EQ(r.network_bytes_in_window, 75u);
}

// Multi-event fragments (fragment.events = p): the ranks count MEPs; the
// summary's event figures are p x theirs, the MEPs' own kept beside, and the
// accounting still adds up. 10 MEPs of p events assigned.
Config noevm_meps(uint32_t p) {
  Config c = noevm(10 * p);
  c.fragment.events = p;
  return c;
}

TEST(MepSummary, EventsArePTimesMeps) {
  const Config c = noevm_meps(4);
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), bus(5, 5));
  EXPECT_EQ(s.packing_factor, 4u);
  EXPECT_EQ(s.meps_assigned, 10u);
  EXPECT_EQ(s.meps_built, 10u);
  EXPECT_EQ(s.events_assigned, 40u);
  EXPECT_EQ(s.events_built, 40u);
  EXPECT_GT(s.meps_per_second, 0);
  EXPECT_DOUBLE_EQ(s.events_per_second, 4 * s.meps_per_second);
  EXPECT_EQ(s.cost.events, 40u);  // results.cost is per event, not per MEP
  EXPECT_TRUE(integrity_ok(s));
}

// A MEP nobody built loses its p events, not one.
TEST(MepSummary, AMepNeverBuiltLosesItsEvents) {
  const Config c = noevm_meps(4);
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), bus(5, 4));
  EXPECT_EQ(s.meps_built, 9u);
  EXPECT_EQ(s.events_built, 36u);
  EXPECT_EQ(s.lost, 4u);
  EXPECT_FALSE(integrity_ok(s));
}

// p = 1: the MEP figures equal the event figures.
TEST(MepSummary, OneEventPerFragmentChangesNothing) {
  const Config c = noevm_meps(1);
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), bus(5, 5));
  EXPECT_EQ(s.packing_factor, 1u);
  EXPECT_EQ(s.events_built, 10u);
  EXPECT_EQ(s.meps_built, 10u);
  EXPECT_DOUBLE_EQ(s.events_per_second, s.meps_per_second);
}

}  // namespace
}  // namespace evb
