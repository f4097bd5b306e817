// An RU out of sync (faults: {desync: ruN}): the EVM's side. In PUSH a BU
// reports two RUs that labelled one slot differently; the EVM names the one
// whose label differs from the event it assigned to that slot (so with two
// nodes too) and answers the BU; in PULL the BU names the RU and the EVM
// only stops assigning. Every field of a report is checked before use.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/command_outcome.hpp"
#include "../support/push_bu_harness.hpp"
#include "../support/recording_driver.hpp"
#include "core/topology.hpp"
#include "protocols/pull/pull.hpp"
#include "protocols/push/push.hpp"
#include "units/fragment_sizes.hpp"
#include "units/readout_unit.hpp"

namespace evb {
namespace {

using test_support::RecordingDriver;

// nodes 2, layout rubu, dedicated EVM: ranks 0 and 1 host RU+BU n, rank 2 the EVM.
Config two_nodes(const std::string& protocol) {
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
  const Config c = two_nodes("push");
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  EventBuildingStats stats;
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
  const Config c = two_nodes("push");
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  EventBuildingStats stats;
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
  const Config c = two_nodes("pull");
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  EventBuildingStats stats;
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

// The PUSH BU: RU 0 labels slot 0 event 5, RU 1 (out of sync by 3) event
// 8. The BU asks the EVM, holds the finished slot (no credit), takes only
// the EVM's answer for a slot it asked about naming the label it has, then
// names RU 1, keeps its fragment in a file and credits the slot as event 5.
TEST(DesyncCommands, PushBuAsksTheEvmAndFollowsOnlyItsAnswer) {
  const Config c = two_nodes("push");
  test_support::PushBuHarness harness(c, "evb-desync");
  RecordingDriver& driver = harness.driver;
  BuilderUnit& bu = harness.bu;
  push::PushBuAgent& agent = harness.agent;
  const EventBuildingStats& stats = harness.stats;
  const std::filesystem::path& dir = harness.dir;
  ReadoutUnit ru0(0, c), ru1(1, c);
  ru1.desync(3);
  harness.arrive(ru0, 0, 5);
  harness.arrive(ru1, 1, 5);
  const Command asked = driver.commands.back();
  EXPECT_EQ(driver.sends.back(), 2);
  EXPECT_EQ(asked.type, CommandType::desync);
  EXPECT_EQ(asked.ru, 1u);
  EXPECT_EQ(asked.event_id, 8u);
  EXPECT_EQ(asked.count, 0u);
  EXPECT_EQ(asked.value, 5u);
  EXPECT_EQ(bu.integrity().corrupt, 0u);
  EXPECT_TRUE(bu.slot(0).desync);
  const size_t sent = driver.commands.size();
  auto answer = [](uint32_t slot, uint32_t ru, uint64_t assigned, uint64_t label) {
    return Command{.type = CommandType::desync,
                   .event_id = assigned,
                   .slot = slot,
                   .bu = 0,
                   .ru = ru,
                   .value = label};
  };
  EXPECT_TRUE(refused(agent, 1, answer(0, 1, 5, 8), "out-of-sync answer from rank 1 refused"));
  EXPECT_TRUE(refused(agent, 2, answer(1, 1, 5, 8), "refused"));  // slot 1 asked nothing
  EXPECT_TRUE(refused(agent, 2, answer(0, 2, 5, 8), "refused"));  // no RU 2
  EXPECT_TRUE(refused(agent, 2, answer(0, 1, 5, 9), "refused"));  // RU 1 said 8
  EXPECT_TRUE(refused(agent, 2, answer(0, 1, 8, 8), "refused"));  // no disagreement
  EXPECT_EQ(driver.commands.size(), sent);                        // the slot is still held
  EXPECT_EQ(bu.integrity().out_of_sync, 0u);
  EXPECT_EQ(test_support::command_outcome(agent, 2, answer(0, 1, 5, 8)), "accepted");
  EXPECT_EQ(bu.integrity().out_of_sync, 1u);
  EXPECT_EQ(bu.integrity().out_of_sync_events, 1u);
  EXPECT_EQ(stats.events_built, 0u);
  EXPECT_NE(bu.first_problem().find(
                "BU 0: RU 1 (rank 1) is out of sync: its fragment for event 5 is labelled event 8"),
            std::string::npos)
      << bu.first_problem();
  // The credit reports the event the EVM assigned (it would refuse another).
  const Command credit = driver.commands.back();
  EXPECT_EQ(credit.type, CommandType::credit);
  EXPECT_EQ(credit.event_id, 5u);
  EXPECT_EQ(credit.value, 1u);
  EXPECT_EQ(credit.bytes, 0u);
  // RU 1's fragment as it arrived: header (labelled 8), metadata, payload.
  std::ifstream kept(dir / "evbench-desync-ru1-bu0-event5-labelled8.frag", std::ios::binary);
  ASSERT_TRUE(kept.good());
  FragmentHeader h{};
  kept.read(reinterpret_cast<char*>(&h), sizeof h);
  EXPECT_EQ(h.event_id, 8u);
  EXPECT_EQ(h.ru, 1u);
  EXPECT_EQ(h.header_crc, header_checksum(h));
  EXPECT_EQ(h.payload_size, fragment_payload(c, 1, 8));
}

}  // namespace
}  // namespace evb

namespace evb {
namespace {

// on_ru_loss mask: a report makes the PULL EVM mask the RU and tell every BU
// (`mask` command) instead of stopping; assignment goes on.
TEST(DesyncMask, PullEvmMasksTheRuAndTellsEveryBu) {
  Config c = two_nodes("pull");
  c.on_failure = OnFailure::exclude;
  c.on_ru_loss = OnRuLoss::mask;
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  EventBuildingStats stats;
  pull::PullEvmAgent evm(engine, topo, stats, false);
  evm.start(0);
  ASSERT_EQ(test_support::command_outcome(evm, 0, credit(0, 0)), "accepted");  // event 0
  const size_t sent = driver.commands.size();
  ASSERT_EQ(test_support::command_outcome(evm, 0, report(0, 0, 1, 3, kNoRu, 0)), "accepted");
  int masks = 0;
  for (size_t k = sent; k < driver.commands.size(); ++k)
    if (driver.commands[k].type == CommandType::mask) {
      EXPECT_EQ(driver.commands[k].ru, 1u);
      ++masks;
    }
  EXPECT_EQ(masks, 2);  // both BUs
  ASSERT_EQ(stats.failures.size(), 1u);
  EXPECT_EQ(stats.failures[0].unit, "RU 1");
  EXPECT_EQ(stats.failures[0].cause, "out of sync");
  EXPECT_EQ(stats.failures[0].action, "masked");
  const size_t before = driver.commands.size();
  ASSERT_EQ(test_support::command_outcome(evm, 0, credit(0, 1)), "accepted");
  EXPECT_GT(driver.commands.size(), before);  // a new event: assignment goes on
  // A second report of the same RU masks nothing more.
  const size_t again = driver.commands.size();
  ASSERT_EQ(test_support::command_outcome(evm, 1, report(1, 0, 1, 3, kNoRu, 0)), "accepted");
  EXPECT_EQ(driver.commands.size(), again);
  EXPECT_EQ(stats.failures.size(), 1u);
}

// A BU takes a `mask` only from the EVM, only under on_ru_loss mask, and
// only for an RU of the run.
TEST(DesyncMask, BuTakesAMaskOnlyFromTheEvm) {
  Config c = two_nodes("pull");
  c.on_failure = OnFailure::exclude;
  c.on_ru_loss = OnRuLoss::mask;
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  EventBuildingStats stats;
  BuilderUnit bu(0, c);
  FilterUnits fus(0, c);
  auto windows = driver.register_memory(bu.memory().data(), bu.memory().size());
  pull::PullBuAgent agent(engine, bu, fus, *windows, topo, stats, false, false);
  agent.start(0);
  const Command mask{.type = CommandType::mask, .ru = 1};
  EXPECT_TRUE(refused(agent, 1, mask, "a mask command from rank 1 refused"));
  EXPECT_TRUE(refused(agent, 2, Command{.type = CommandType::mask, .ru = 2}, "refused"));
  EXPECT_EQ(test_support::command_outcome(agent, 2, mask), "accepted");

  Config stop = two_nodes("pull");  // on_ru_loss stop: no mask taken
  stop.on_failure = OnFailure::exclude;
  Engine engine2(driver, 0, stop, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  BuilderUnit bu2(0, stop);
  EventBuildingStats stats2;
  pull::PullBuAgent agent2(engine2, bu2, fus, *windows, topo, stats2, false, false);
  EXPECT_TRUE(refused(agent2, 2, mask, "refused"));
}

}  // namespace
}  // namespace evb

namespace evb {
namespace {

// on_ru_loss mask, layout rubu: the rank of RU 1 and BU 1 is lost. The RU's
// record comes first, then the BU's; the BU's event, handed to BU 0 and
// built there (masked), closes the BU's record (its recovery time).
TEST(MaskedNode, ABuLostWithItsRuIsRebuiltAndItsRecordClosed) {
  Config c = two_nodes("pull");
  c.on_failure = OnFailure::exclude;
  c.on_ru_loss = OnRuLoss::mask;
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  EventBuildingStats stats;
  pull::PullEvmAgent evm(engine, topo, stats, false);
  evm.start(0);
  ASSERT_EQ(test_support::command_outcome(evm, 1, credit(1, 0)), "accepted");  // event 0 -> BU 1
  ASSERT_EQ(test_support::command_outcome(evm, 0, credit(0, 0)), "accepted");  // event 1 -> BU 0
  evm.on_peer_lost(1, 1000);
  ASSERT_EQ(stats.failures.size(), 2u);
  EXPECT_EQ(stats.failures[0].unit, "RU 1");
  EXPECT_EQ(stats.failures[1].unit, "BU 1");
  EXPECT_EQ(stats.failures[1].reassigned, 1u);
  EXPECT_LT(stats.failures[1].recovered_at_s, 0);  // event 0 not built yet
  auto finished = [](uint64_t event) {
    return Command{.type = CommandType::credit,
                   .event_id = event,
                   .slot = 0,
                   .bu = 0,
                   .bytes = 4096,
                   .value = 2};  // built without the masked RU
  };
  ASSERT_EQ(test_support::command_outcome(evm, 0, finished(1)), "accepted");  // takes event 0
  ASSERT_EQ(test_support::command_outcome(evm, 0, finished(0)), "accepted");
  EXPECT_GE(stats.failures[1].recovered_at_s, 0);
  EXPECT_LT(stats.failures[0].recovered_at_s, 0);  // an RU's record holds no events
}

}  // namespace
}  // namespace evb
