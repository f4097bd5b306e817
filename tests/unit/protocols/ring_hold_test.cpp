// Under on_failure exclude the RUs keep every fragment until its event is
// acknowledged built: a ring slot belongs to the event that entered it until
// the EVM's release (RingOwnership, RuAgent), and the EVM holds back a new
// event whose home slot is not released yet, telling the RUs the watermark
// in batches (EventManager, EvmAgent).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "../support/command_outcome.hpp"
#include "../support/recording_driver.hpp"
#include "core/error.hpp"
#include "core/ring_geometry.hpp"
#include "core/topology.hpp"
#include "protocols/event_building/ru_agent.hpp"
#include "protocols/pull/pull.hpp"
#include "protocols/push/push.hpp"
#include "units/event_manager.hpp"
#include "units/readout_unit.hpp"
#include "units/ring_ownership.hpp"

namespace evb {
namespace {

using test_support::RecordingDriver;
using V = RingOwnership::Verdict;

TEST(RingOwnership, ASlotBelongsToItsEventUntilReleased) {
  RingOwnership ring(4);
  for (uint64_t e = 0; e < 4; ++e) EXPECT_EQ(ring.enter(e).verdict, V::held);
  EXPECT_EQ(ring.held(), 4u);
  EXPECT_EQ(ring.enter(2).verdict, V::held);  // a reassigned event: the same data
  EXPECT_EQ(ring.held(), 4u);
  // Event 5's home slot (1) still belongs to event 1: an overrun.
  const RingOwnership::Entry over = ring.enter(5);
  EXPECT_EQ(over.verdict, V::overrun);
  EXPECT_EQ(over.slot, 1u);
  EXPECT_EQ(over.other, 1u);
  EXPECT_EQ(ring.owner(1), 5u);
  EXPECT_EQ(ring.held(), 4u);
  EXPECT_EQ(ring.frontier(), 6u);
  // Events 0 and 1 built: slot 0 is free; slot 1 belongs to event 5 now.
  ASSERT_EQ(ring.release_refusal(2), nullptr);
  ring.release(2);
  EXPECT_EQ(ring.owner(0), RingOwnership::kFree);
  EXPECT_EQ(ring.owner(1), 5u);
  EXPECT_EQ(ring.held(), 3u);
  EXPECT_EQ(ring.enter(1).verdict, V::stale);  // asked for after its release
  EXPECT_EQ(ring.enter(4).verdict, V::held);   // slot 0 is free again
  EXPECT_EQ(ring.max_held(), 4u);
}

TEST(RingOwnership, ReleasesMovePastTheLastAndNotBeyondWhatEntered) {
  RingOwnership ring(4);
  EXPECT_NE(ring.release_refusal(0), nullptr);  // does not move
  EXPECT_NE(ring.release_refusal(1), nullptr);  // nothing entered yet
  ring.enter(0);
  ring.enter(1);
  EXPECT_NE(ring.release_refusal(3), nullptr);
  EXPECT_EQ(ring.release_refusal(2), nullptr);
  ring.release(2);
  EXPECT_NE(ring.release_refusal(2), nullptr);
  EXPECT_EQ(ring.held(), 0u);
}

TEST(RingOwnership, AReleaseOfMoreThanTheRingFreesEverySlotBelowIt) {
  RingOwnership ring(4);
  for (uint64_t e = 0; e < 4; ++e) ring.enter(e);
  ring.release(3);
  for (uint64_t e = 4; e < 7; ++e) EXPECT_EQ(ring.enter(e).verdict, V::held);
  for (uint64_t e = 7; e < 13; ++e) ring.enter(e % 4 == 3 ? e : 0);  // event 3's slot: 7, 11
  EXPECT_EQ(ring.owner(3), 11u);
  ring.release(12);  // a jump of more than 4 events
  EXPECT_EQ(ring.held(), 0u);
}

TEST(Watermark, NewEventsWaitForTheReleaseOfTheirRingSlot) {
  EventManager evm(2, 0);
  evm.hold_fragments(4);
  for (uint64_t e = 0; e < 4; ++e) EXPECT_EQ(evm.assign(static_cast<int>(e % 2)), e);
  EXPECT_FALSE(evm.assign(0).has_value());  // event 4's slot belongs to event 0
  EXPECT_EQ(evm.held_back(), 1u);
  evm.completed(1, 1);
  EXPECT_EQ(evm.watermark(), 0u);  // event 0 is not finished
  EXPECT_FALSE(evm.take_release(false).has_value());
  EXPECT_FALSE(evm.assign(1).has_value());
  evm.completed(0, 0);
  EXPECT_EQ(evm.watermark(), 2u);
  EXPECT_EQ(evm.released(), 0u);
  EXPECT_FALSE(evm.assign(0).has_value());  // the RUs have not been told yet
  EXPECT_EQ(evm.take_release(false), 2u);   // a slot waits for it: sent at once
  EXPECT_EQ(evm.assign(0), 4u);
  EXPECT_EQ(evm.assign(1), 5u);
  EXPECT_FALSE(evm.assign(1).has_value());
  EXPECT_EQ(evm.held_back(), 4u);
}

TEST(Watermark, ReleasesGoInBatchesOfAQuarterRingAndAtTheEnd) {
  EventManager evm(1, 0);
  evm.hold_fragments(8);  // batches of 2
  EXPECT_EQ(evm.assign(0), 0u);
  EXPECT_EQ(evm.assign(0), 1u);
  evm.completed(0, 0);
  EXPECT_FALSE(evm.take_release(false).has_value());  // moved by 1
  evm.completed(0, 1);
  EXPECT_EQ(evm.take_release(false), 2u);
  EXPECT_EQ(evm.assign(0), 2u);
  evm.completed(0, 2);
  EXPECT_FALSE(evm.take_release(false).has_value());
  EXPECT_EQ(evm.take_release(true), 3u);  // the end: whatever moved
  EXPECT_FALSE(evm.take_release(true).has_value());
}

TEST(Watermark, CountsEventsQueuedForReassignmentAsUnfinished) {
  EventManager evm(2, 0);
  evm.hold_fragments(8);
  EXPECT_EQ(evm.assign(0), 0u);
  EXPECT_EQ(evm.assign(1), 1u);
  EXPECT_EQ(evm.assign(0), 2u);
  evm.completed(0, 0);
  evm.completed(0, 2);
  EXPECT_EQ(evm.watermark(), 1u);
  evm.exclude(1, {1});
  EXPECT_EQ(evm.watermark(), 1u);  // queued, not built
  EXPECT_EQ(evm.assign(0), 1u);
  evm.completed(0, 1);
  EXPECT_EQ(evm.watermark(), 3u);
  EXPECT_THROW(evm.completed(0, 1), std::logic_error);  // nothing is out any more
}

TEST(Watermark, AnEventFinishedTwiceIsALogicError) {
  EventManager evm(2, 0);
  evm.hold_fragments(4);
  EXPECT_EQ(evm.assign(0), 0u);
  EXPECT_EQ(evm.assign(0), 1u);
  evm.completed(0, 1);
  EXPECT_THROW(evm.completed(0, 1), std::logic_error);
}

// nodes 2, layout rubu, dedicated EVM: ranks 0 and 1 host RU+BU n, rank 2
// the EVM; each RU's ring holds exactly nodes x credits = 4 fragments.
Config held_config(OnFailure policy) {
  Config c;
  c.nodes = 2;
  c.parallel = 1;
  c.credits = 2;
  c.fragment.size = 4096;
  c.on_failure = policy;
  c.ru_buffer = exclude_min_ru_buffer(c);
  return c;
}

const std::vector<std::string> kNames = {"rank 0", "rank 1", "rank 2 (EVM)"};

std::string outcome(Agent& a, PeerId from, const Command& cmd) {
  return test_support::command_outcome(a, from, cmd);
}

Command request(uint64_t event, uint32_t slot, uint64_t released) {
  return Command{.type = CommandType::pull_request,
                 .event_id = event,
                 .slot = slot,
                 .bu = 1,
                 .ru = 0,
                 .value = released};
}

Command release(uint64_t watermark) {
  return Command{.type = CommandType::release, .value = watermark};
}

struct RuFixture {
  explicit RuFixture(OnFailure policy)
      : c(held_config(policy)),
        topo(make_topology(c)),
        engine(driver, 0, c, PollMode::busy, kNames),
        ru(0, c),
        ring(driver.register_memory(ru.memory().data(), ru.memory().size())),
        agent(engine, ru, *ring, topo, stats, nullptr) {}
  Config c;
  Topology topo;
  RecordingDriver driver;
  Engine engine;
  ReadoutUnit ru;
  RegistrationPtr ring;
  EventBuildingStats stats;
  RuAgent agent;
};

TEST(RuRing, AnOverrunIsCountedAndNamed) {
  RuFixture f(OnFailure::exclude);
  ASSERT_EQ(f.ru.slots(), 4u);
  ASSERT_EQ(min_ring_slots(f.c), 4u);
  EXPECT_EQ(outcome(f.agent, 1, request(0, 0, 0)), "accepted");
  EXPECT_EQ(outcome(f.agent, 1, request(0, 1, 0)), "accepted");  // served again
  EXPECT_EQ(f.stats.ring_overrun, 0u);
  // Event 4 while event 0 holds slot 0 (only a faulty EVM assigns it).
  EXPECT_EQ(outcome(f.agent, 1, request(4, 0, 0)), "accepted");
  EXPECT_EQ(f.stats.ring_overrun, 1u);
  EXPECT_EQ(f.stats.integrity_problem,
            "RU 0: ring overrun: event 4 needs ring slot 0, still held by event 0 (not "
            "acknowledged built)");
  EXPECT_EQ(f.driver.sends, (std::vector<PeerId>{1, 1, 1}));
  EXPECT_EQ(f.stats.max_events_held, 1u);
  // After the release of events below 5, event 2 is stale.
  EXPECT_EQ(outcome(f.agent, 2, release(5)), "accepted");
  EXPECT_EQ(outcome(f.agent, 1, request(2, 0, 0)), "accepted");
  EXPECT_EQ(f.stats.ring_overrun, 2u);
}

TEST(RuRing, ReleasesComeFromTheEvmMoveOnAndStayWithinWhatWasAsked) {
  RuFixture f(OnFailure::exclude);
  EXPECT_NE(outcome(f.agent, 1, release(1)).find("RU 0: a release from rank 1 refused"),
            std::string::npos);
  EXPECT_NE(outcome(f.agent, 2, release(1)).find("beyond the events this RU was asked for"),
            std::string::npos);
  EXPECT_EQ(outcome(f.agent, 1, request(0, 0, 0)), "accepted");
  EXPECT_EQ(outcome(f.agent, 1, request(1, 1, 0)), "accepted");
  EXPECT_EQ(f.stats.max_events_held, 2u);
  EXPECT_EQ(outcome(f.agent, 2, release(2)), "accepted");
  EXPECT_NE(outcome(f.agent, 2, release(2))
                .find("a release (not past the last one) from rank 2 (EVM) refused"),
            std::string::npos);
  EXPECT_NE(outcome(f.agent, 2, release(1))
                .find("a release (not past the last one) from rank 2 (EVM) refused"),
            std::string::npos);
  // A request cannot claim a release beyond its own event.
  EXPECT_NE(outcome(f.agent, 1, request(3, 0, 4)).find("beyond its own event"), std::string::npos);
  EXPECT_EQ(f.stats.ring_overrun, 0u);
}

TEST(RuRing, ARequestAheadOfItsReleaseWaitsForIt) {
  RuFixture f(OnFailure::exclude);
  EXPECT_EQ(outcome(f.agent, 1, request(0, 0, 0)), "accepted");
  EXPECT_EQ(outcome(f.agent, 1, request(1, 1, 0)), "accepted");
  ASSERT_EQ(f.driver.sends.size(), 2u);
  // Event 4 was assigned once the EVM had released events below 1: the
  // release overtook nothing, it is still on its way. The request waits.
  EXPECT_EQ(outcome(f.agent, 1, request(4, 0, 1)), "accepted");
  EXPECT_EQ(f.driver.sends.size(), 2u);
  EXPECT_NE(f.agent.waiting_for().find("a release of the events below 1"), std::string::npos);
  EXPECT_EQ(outcome(f.agent, 2, release(1)), "accepted");
  EXPECT_EQ(f.driver.sends.size(), 3u);  // served from the slot event 0 left
  EXPECT_EQ(f.stats.ring_overrun, 0u);
  // At most two waiting requests per BU slot (one more from a BU excluded
  // that this RU has not heard of yet).
  for (uint32_t n = 0; n < 8; ++n)
    EXPECT_EQ(outcome(f.agent, 1, request(5 + n / 2, n % 2, 2)), "accepted");
  EXPECT_EQ(f.agent.parked(), 8u);
  EXPECT_NE(outcome(f.agent, 1, request(9, 1, 2)).find("waiting for a release"), std::string::npos);
  EXPECT_EQ(f.driver.sends.size(), 3u);
  // A stop before the release came: each waiting request is counted.
  EXPECT_EQ(outcome(f.agent, 2, Command{.type = CommandType::stop}), "accepted");
  EXPECT_EQ(f.stats.ring_overrun, 8u);
  EXPECT_NE(f.stats.integrity_problem.find("that never came"), std::string::npos);
}

TEST(RuRing, AnExcludedBusWaitingRequestsAreDropped) {
  RuFixture f(OnFailure::exclude);
  EXPECT_EQ(outcome(f.agent, 1, request(0, 0, 0)), "accepted");
  EXPECT_EQ(outcome(f.agent, 1, request(1, 1, 1)), "accepted");  // waits for release 1
  EXPECT_EQ(f.agent.parked(), 1u);
  EXPECT_EQ(outcome(f.agent, 2, Command{.type = CommandType::exclude, .bu = 1}), "accepted");
  EXPECT_EQ(f.agent.parked(), 0u);
  EXPECT_EQ(f.stats.late_discarded, 1u);
  EXPECT_EQ(outcome(f.agent, 2, release(1)), "accepted");
  EXPECT_EQ(f.driver.sends.size(), 1u);  // nothing more for the excluded BU
  EXPECT_EQ(f.stats.ring_overrun, 0u);
}

TEST(RuRing, AbortKeepsNothingAndRefusesReleases) {
  RuFixture f(OnFailure::abort);
  EXPECT_EQ(outcome(f.agent, 1, request(0, 0, 0)), "accepted");
  EXPECT_EQ(outcome(f.agent, 1, request(4, 1, 0)), "accepted");  // a pure function of the id
  EXPECT_EQ(f.stats.ring_overrun, 0u);
  EXPECT_EQ(f.stats.max_events_held, 0u);
  EXPECT_NE(outcome(f.agent, 2, release(1)).find("unexpected command 10"), std::string::npos);
}

Command credit(uint32_t bu, uint32_t slot, uint64_t event, bool finished) {
  return Command{.type = CommandType::credit,
                 .event_id = event,
                 .slot = slot,
                 .bu = bu,
                 .value = finished ? 1u : 0u};
}

TEST(EvmRelease, HoldsBackNewEventsAndReleasesTheRings) {
  const Config c = held_config(OnFailure::exclude);
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, kNames);
  EventBuildingStats stats;
  pull::PullEvmAgent evm(engine, topo, stats, false);
  evm.start(0);
  // Four BU slots take events 0..3: the rings' 4 slots.
  EXPECT_EQ(outcome(evm, 0, credit(0, 0, 0, false)), "accepted");
  EXPECT_EQ(outcome(evm, 1, credit(1, 0, 0, false)), "accepted");
  EXPECT_EQ(outcome(evm, 0, credit(0, 1, 0, false)), "accepted");
  EXPECT_EQ(outcome(evm, 1, credit(1, 1, 0, false)), "accepted");
  ASSERT_EQ(driver.commands.size(), 4u);
  // Event 1 built: event 4 would need event 0's slot. Held back.
  EXPECT_EQ(outcome(evm, 1, credit(1, 0, 1, true)), "accepted");
  EXPECT_EQ(driver.commands.size(), 4u);
  // Event 0 built: events below 2 are released to both RUs, then the two
  // waiting slots get events 4 and 5, each assigned under release 2.
  EXPECT_EQ(outcome(evm, 0, credit(0, 0, 0, true)), "accepted");
  ASSERT_EQ(driver.commands.size(), 8u);
  EXPECT_EQ(driver.commands[4].type, CommandType::release);
  EXPECT_EQ(driver.commands[4].value, 2u);
  EXPECT_EQ(driver.commands[5].type, CommandType::release);
  EXPECT_EQ((std::vector<PeerId>{driver.sends[4], driver.sends[5]}),
            (std::vector<PeerId>{topo.ru_rank[0], topo.ru_rank[1]}));
  for (size_t i : {6u, 7u}) {
    EXPECT_EQ(driver.commands[i].type, CommandType::assign);
    EXPECT_EQ(driver.commands[i].value, 2u);
  }
  EXPECT_EQ(driver.commands[6].event_id, 4u);
  EXPECT_EQ(driver.sends[6], 1);  // BU 1's slot waited first
  EXPECT_EQ(driver.commands[7].event_id, 5u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(driver.commands[i].value, 0u);
}

TEST(EvmRelease, AbortSendsNoRelease) {
  const Config c = held_config(OnFailure::abort);
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, kNames);
  EventBuildingStats stats;
  push::PushEvmAgent evm(engine, topo, stats, false);
  evm.start(0);
  EXPECT_EQ(outcome(evm, 0, credit(0, 0, 0, false)), "accepted");
  EXPECT_EQ(outcome(evm, 0, credit(0, 1, 0, false)), "accepted");
  for (int round = 0; round < 6; ++round)  // well past the ring: nothing held back
    EXPECT_EQ(outcome(evm, 0, credit(0, round % 2, round, true)), "accepted");
  for (const Command& cmd : driver.commands) EXPECT_EQ(cmd.type, CommandType::push_assign);
  EXPECT_EQ(driver.commands.size(), 2u * 8u);  // 8 events, to 2 RUs each
}

}  // namespace
}  // namespace evb
