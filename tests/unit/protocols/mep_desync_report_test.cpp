// How a BU names an RU out of sync in a MEP whose label moved (a desync
// backwards, or by fragment.events or more): the header is then a MEP too
// early or too late, and the report gives events, as for a wrong event
// inside a MEP: the first event the fragment carries where the MEP's first
// belongs (stderr, results.integrity.first_problem, the kept file's name),
// never MEP numbers worded as events. The protocol's own handling (the PUSH
// BU's question, the EVM's answer) stays in MEP numbers.
#include <gtest/gtest.h>

#include <filesystem>

#include "../support/command_outcome.hpp"
#include "../support/push_bu_harness.hpp"

namespace evb {
namespace {

// PUSH, 2 nodes in layout rubu with a dedicated EVM (rank 2), MEPs of 8.
Config push_meps() {
  Config c;
  c.protocol = "push";
  c.nodes = 2;
  c.parallel = 1;
  c.credits = 2;
  c.fragment.size = 512;
  c.fragment.events = 8;
  c.ru_buffer = 1 << 20;
  return c;
}

TEST(MepDesyncReport, AMovedLabelIsNamedByItsFirstEvent) {
  const Config c = push_meps();
  test_support::PushBuHarness harness(c, "evb-mep-desync");
  ReadoutUnit ru0(0, c), ru1(1, c);
  ru1.desync(-2);  // MEP 5 from RU 1: events 38 .. 45, labelled MEP 4
  harness.arrive(ru0, 0, 5);
  harness.arrive(ru1, 1, 5);
  const Command asked = harness.driver.commands.back();  // in MEP numbers, as assigned
  ASSERT_EQ(asked.type, CommandType::desync);
  EXPECT_EQ(asked.event_id, 4u);
  EXPECT_EQ(asked.value, 5u);
  const Command answer{
      .type = CommandType::desync, .event_id = 5, .slot = 0, .bu = 0, .ru = 1, .value = 4};
  ASSERT_EQ(test_support::command_outcome(harness.agent, 2, answer), "accepted");
  EXPECT_EQ(harness.bu.integrity().out_of_sync, 1u);
  EXPECT_EQ(harness.bu.integrity().corrupt, 0u);
  EXPECT_EQ(harness.bu.first_problem(),
            "BU 0: RU 1 (rank 1) is out of sync: its fragment for MEP 5 carries event 38 where "
            "event 40 belongs");
  EXPECT_TRUE(
      std::filesystem::exists(harness.dir / "evbench-desync-ru1-bu0-event40-labelled38.frag"));
}

}  // namespace
}  // namespace evb
