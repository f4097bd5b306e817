// An RU out of sync (faults: {desync: ruN}): the EVM's side. In PUSH a BU
// reports two RUs that labelled one slot differently; the EVM names the one
// whose label differs from the event it assigned to that slot (so with two
// nodes too) and answers the BU; in PULL the BU names the RU and the EVM
// only stops assigning. Every field of a report is checked before use.
#include <gtest/gtest.h>

#include <string>

#include "../support/command_outcome.hpp"
#include "../support/recording_driver.hpp"
#include "core/topology.hpp"
#include "protocols/pull/pull.hpp"
#include "protocols/push/push.hpp"

namespace evb {
namespace {

using test_support::RecordingDriver;

// nodes 2, layout rubu, dedicated EVM: ranks 0 and 1 host RU+BU n, rank 2 the EVM.
Config two_nodes(Protocol protocol) {
  Config c;
  c.protocol = protocol;
  c.nodes = 2;
  c.parallel = 1;
  c.credits = 2;
  c.fragment.size = 4096;
  c.ru_buffer = 1 << 20;
  return c;
}

Command credit(uint32_t bu, uint32_t slot) {
  return Command{.type = CommandType::credit, .slot = slot, .bu = bu};
}

// BU `bu`'s report: RU `ru` labelled slot `slot` `label`, RU `other` (kNoRu:
// the BU knows the slot's event) `other_label`.
Command report(uint32_t bu, uint32_t slot, uint32_t ru, uint64_t label, uint32_t other,
               uint64_t other_label) {
  return Command{.type = CommandType::desync,
                 .event_id = label,
                 .slot = slot,
                 .bu = bu,
                 .ru = ru,
                 .count = other,
                 .value = other_label};
}

bool refused(Agent& a, PeerId from, const Command& cmd, const std::string& why) {
  const std::string out = test_support::command_outcome(a, from, cmd);
  EXPECT_NE(out.find(why), std::string::npos) << out;
  return out != "accepted";
}

TEST(DesyncCommands, PushEvmNamesTheRuWhoseLabelDiffersFromItsAssignment) {
  const Config c = two_nodes(Protocol::push);
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  RankStats stats;
  push::PushEvmAgent evm(engine, topo, stats, false);
  evm.start(0);
  ASSERT_EQ(test_support::command_outcome(evm, 0, credit(0, 0)), "accepted");  // event 0
  ASSERT_EQ(test_support::command_outcome(evm, 1, credit(1, 0)), "accepted");  // event 1
  const size_t sent = driver.commands.size();
  // BU 0, slot 0 (event 0): RU 1 came first labelled 3, RU 0 says 0. RU 1 is wrong.
  ASSERT_EQ(test_support::command_outcome(evm, 0, report(0, 0, 0, 0, 1, 3)), "accepted");
  ASSERT_EQ(driver.commands.size(), sent + 1);
  const Command a = driver.commands.back();
  EXPECT_EQ(driver.sends.back(), 0);
  EXPECT_EQ(a.type, CommandType::desync);
  EXPECT_EQ(a.slot, 0u);
  EXPECT_EQ(a.event_id, 0u);  // what the EVM assigned
  EXPECT_EQ(a.ru, 1u);
  EXPECT_EQ(a.value, 3u);
  // BU 1, slot 0 (event 1): RU 0 first labelled 1, RU 1 says 4. RU 1 again.
  ASSERT_EQ(test_support::command_outcome(evm, 1, report(1, 0, 1, 4, 0, 1)), "accepted");
  EXPECT_EQ(driver.sends.back(), 1);
  EXPECT_EQ(driver.commands.back().ru, 1u);
  EXPECT_EQ(driver.commands.back().value, 4u);
  EXPECT_EQ(driver.commands.back().event_id, 1u);
  // Assignment stopped: a free slot's credit gets no event.
  const size_t before = driver.commands.size();
  ASSERT_EQ(test_support::command_outcome(evm, 0, credit(0, 1)), "accepted");
  EXPECT_EQ(driver.commands.size(), before);
}

TEST(DesyncCommands, EvmChecksEveryFieldOfAReport) {
  const Config c = two_nodes(Protocol::push);
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  RankStats stats;
  push::PushEvmAgent evm(engine, topo, stats, false);
  evm.start(0);
  ASSERT_EQ(test_support::command_outcome(evm, 0, credit(0, 0)), "accepted");  // event 0
  EXPECT_TRUE(refused(evm, 1, report(0, 0, 0, 0, 1, 3), "names another BU"));
  EXPECT_TRUE(refused(evm, 0, report(7, 0, 0, 0, 1, 3), "names another BU"));
  EXPECT_TRUE(refused(evm, 0, report(0, 2, 0, 0, 1, 3), "no valid slot"));
  EXPECT_TRUE(refused(evm, 0, report(0, 0, 2, 0, 1, 3), "no valid RU"));
  EXPECT_TRUE(refused(evm, 0, report(0, 0, 0, 0, 2, 3), "no second RU"));
  EXPECT_TRUE(refused(evm, 0, report(0, 0, 1, 0, 1, 3), "no second RU"));
  EXPECT_TRUE(refused(evm, 0, report(0, 0, 1, 0, kNoRu, 3), "no second RU"));
  EXPECT_TRUE(refused(evm, 0, report(0, 0, 0, 3, 1, 3), "the two events are the same"));
  EXPECT_TRUE(refused(evm, 0, report(0, 1, 0, 0, 1, 3), "the slot holds no event"));
}

TEST(DesyncCommands, PullEvmStopsAssigningOnAReport) {
  const Config c = two_nodes(Protocol::pull);
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  RankStats stats;
  pull::PullEvmAgent evm(engine, topo, stats, false);
  evm.start(0);
  ASSERT_EQ(test_support::command_outcome(evm, 0, credit(0, 0)), "accepted");  // event 0
  const size_t sent = driver.commands.size();
  EXPECT_TRUE(refused(evm, 0, report(0, 0, 1, 3, 0, 0), "a second RU where the BU knows"));
  EXPECT_EQ(test_support::command_outcome(evm, 0, report(0, 0, 1, 3, kNoRu, 0)), "accepted");
  EXPECT_EQ(driver.commands.size(), sent);  // no answer: the BU named the RU
  ASSERT_EQ(test_support::command_outcome(evm, 0, credit(0, 1)), "accepted");
  EXPECT_EQ(driver.commands.size(), sent);  // and no new event
}

}  // namespace
}  // namespace evb
