// A run that masked an RU (on_ru_loss mask): a degraded success, not a lost
// data source; its masked events are counted from the EVM's books and, per
// RU, from the BUs; recovery is measured against (N-1)/N of the pre-fault
// level.
#include <gtest/gtest.h>

#include <vector>

#include "core/topology.hpp"
#include "protocols/event_building/event_building_status.hpp"
#include "protocols/event_building/report_masked.hpp"
#include "summarize.hpp"

namespace evb {
namespace {

Config masked_config() {
  Config c;
  c.nodes = 4;
  c.protocol = "pull";
  c.on_failure = OnFailure::exclude;
  c.on_ru_loss = OnRuLoss::mask;
  c.events = 100;
  c.warmup_s = 0;
  return c;
}

FailureRecord ru_record(const std::string& action) {
  FailureRecord f;
  f.unit = "RU 2";
  f.ru = 2;
  f.rank = 2;
  f.cause = "peer lost";
  f.action = action;
  f.lost_at_s = 1.0;
  f.detected_at_s = 1.0;
  return f;
}

// Four BUs built 25 events each, 10 of them (BU 0: 6, BU 1: 4) without RU 2.
std::vector<EventBuildingRank> ranks(const std::string& action) {
  std::vector<EventBuildingRank> r(4);
  for (int b = 0; b < 4; ++b) {
    r[b].rank = r[b].bu = r[b].ru = b;
    r[b].events_built = r[b].events_started = r[b].events_in_window = 25;
    r[b].last_completion_ns = 1000000;
    r[b].masked_per_ru.assign(4, 0);
  }
  r[0].masked_per_ru[2] = 6;
  r[1].masked_per_ru[2] = 4;
  r[0].masked_events = 6;
  r[1].masked_events = 4;
  r[0].evm = true;
  r[0].events_assigned = 100;
  r[0].evm_masked_events = 10;
  r[0].failures.push_back(ru_record(action));
  return r;
}

TEST(MaskedSummary, AMaskedRuIsADegradedSuccess) {
  const Config c = masked_config();
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), ranks("masked"));
  EXPECT_TRUE(integrity_ok(s));
  EXPECT_FALSE(data_source_lost(s));
  EXPECT_STREQ(event_building_status(s), "ok");
  EXPECT_TRUE(lost_data_sources(s).empty());
  ASSERT_EQ(masked_sources(s).size(), 1u);
  EXPECT_EQ(s.masked_events, 10u);
  EXPECT_EQ(built_without(s, 2), 10u);
  EXPECT_EQ(built_without(s, 1), 0u);
  EXPECT_EQ(masked_summary(s), "RU 2 (rank 2) masked at 1.00 s, 10 events built without it");
  EXPECT_EQ(s.lost, 0u);
}

// The same loss under on_ru_loss stop is a lost data source (exit 3).
TEST(MaskedSummary, AStoppedRuIsStillALostDataSource) {
  Config c = masked_config();
  c.on_ru_loss = OnRuLoss::stop;
  const auto s = summarize<EventBuildingSummary>(c, make_topology(c), ranks("stopped"));
  EXPECT_TRUE(data_source_lost(s));
  EXPECT_STREQ(event_building_status(s), "data_source_lost");
  EXPECT_TRUE(masked_sources(s).empty());
  EXPECT_EQ(masked_summary(s), "");
}

// 100 bytes per 10-ms bin before the fault at 1 s, 75 after it: with one
// of four RUs masked that is all the level left (3/4), so recovered; the
// whole level is never reached again.
TEST(MaskedSummary, RecoveryIsMeasuredAgainstTheShareTheRusLeftCanGive) {
  const Config c = masked_config();
  auto s = summarize<EventBuildingSummary>(c, make_topology(c), ranks("masked"));
  s.rate_bin_s = 0.01;
  s.rate_bins.assign(300, 100);
  for (size_t k = 100; k < 300; ++k) s.rate_bins[k] = 75;
  const AggregateRecovery whole = aggregate_recovery(s, 1.0, 1.0);
  ASSERT_TRUE(whole.known);
  EXPECT_FALSE(whole.time_to_recover_s.has_value());
  const AggregateRecovery masked = recovery_after(s, 1.0, 1.0);
  ASSERT_TRUE(masked.known);
  EXPECT_EQ(masked.rus_left, 3);
  EXPECT_EQ(masked.rus, 4);
  ASSERT_TRUE(masked.time_to_recover_s.has_value());
  EXPECT_GE(masked.best_fraction, 0.9);
  EXPECT_DOUBLE_EQ(masked.pre_fault_gbps, whole.pre_fault_gbps);
  // A fault over before the RU was masked is measured against the whole level.
  EXPECT_EQ(recovery_after(s, 0.5, 0.6).rus, 0);
}

}  // namespace
}  // namespace evb
