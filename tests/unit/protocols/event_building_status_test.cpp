// The event builders' rules for a run's summary
// (protocols/event_building/event_building_status.hpp): RUs are told from BUs by
// the failure record's role, not by its printed name; a lost RU is a lost
// data source unless it was masked; integrity errors win over a lost data
// source in results.status.
#include "protocols/event_building/event_building_status.hpp"

#include <gtest/gtest.h>

#include "protocols/api/report_parts.hpp"

namespace evb {
namespace {

FailureRecord record(const std::string& unit, int bu, int ru, const std::string& action) {
  FailureRecord f;
  f.unit = unit;
  f.bu = bu;
  f.ru = ru;
  f.action = action;
  return f;
}

TEST(EventBuildingStatus, RusAreToldByRoleNotByName) {
  EventBuildingSummary s;
  // A BU whatever its name says, and an RU whatever its name says.
  s.failures.push_back(record("RU-like BU", 1, -1, "reassigned"));
  EXPECT_TRUE(lost_data_sources(s).empty());
  EXPECT_FALSE(data_source_lost(s));
  EXPECT_STREQ(event_building_status(s), "ok");
  s.failures.push_back(record("source 2", -1, 2, "stopped"));
  ASSERT_EQ(lost_data_sources(s).size(), 1u);
  EXPECT_EQ(lost_data_sources(s)[0].ru, 2);
  EXPECT_TRUE(data_source_lost(s));
  EXPECT_STREQ(event_building_status(s), "data_source_lost");
}

TEST(EventBuildingStatus, AMaskedRuIsNoLostDataSource) {
  EventBuildingSummary s;
  s.failures.push_back(record("RU 3", -1, 3, "masked"));
  EXPECT_TRUE(lost_data_sources(s).empty());
  ASSERT_EQ(masked_sources(s).size(), 1u);
  EXPECT_STREQ(event_building_status(s), "ok");
  s.incomplete_lost_peer = 1;  // an event a BU could not complete for lack of an RU
  EXPECT_STREQ(event_building_status(s), "data_source_lost");
}

TEST(EventBuildingStatus, IntegrityErrorsWinAndEventsMustBeAccountedFor) {
  EventBuildingSummary s;
  s.failures.push_back(record("RU 0", -1, 0, "stopped"));
  EXPECT_TRUE(integrity_ok(s));
  s.lost = 1;
  EXPECT_FALSE(integrity_ok(s));
  EXPECT_STREQ(event_building_status(s), "integrity_error");
  s.lost = 0;
  s.ring_overrun = 1;
  EXPECT_FALSE(integrity_ok(s));
  s.ring_overrun = 0;
  s.integrity.corrupt = 1;  // not injected
  EXPECT_FALSE(integrity_ok(s));
  s.integrity.injected = s.integrity.injected_detected = 1;  // injected and caught
  EXPECT_TRUE(integrity_ok(s));
  EXPECT_TRUE(integrity_counters_ok(s.integrity));
}

}  // namespace
}  // namespace evb
