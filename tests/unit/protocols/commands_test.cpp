// Peers' commands are checked before they are acted on: only the peer
// entitled to a command may send it, and it must name a slot in the state
// the command needs. The agents run on an Engine over a driver that only
// records sends; commands are handed to them directly, as from a peer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/command_outcome.hpp"
#include "../support/recording_driver.hpp"
#include "core/error.hpp"
#include "core/topology.hpp"
#include "protocols/event_building/ru_agent.hpp"
#include "protocols/pull/pull.hpp"
#include "units/readout_unit.hpp"

namespace evb {
namespace {

using test_support::RecordingDriver;

// nodes 2, layout rubu, dedicated EVM: ranks 0 and 1 host RU+BU n, rank 2 the EVM.
Config two_nodes() {
  Config c;
  c.nodes = 2;
  c.parallel = 1;
  c.credits = 2;
  c.fragment.size = 4096;
  c.ru_buffer = 1 << 20;
  return c;
}

std::string refusal(Agent& a, PeerId from, const Command& cmd) {
  return test_support::command_outcome(a, from, cmd);
}

TEST(Commands, RuServesOnlyTheEntitledSender) {
  const Config c = two_nodes();
  const Topology topo = make_topology(c);
  ASSERT_EQ(topo.evm_rank, 2);
  RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  ReadoutUnit ru(0, c);
  auto ring = driver.register_memory(ru.memory().data(), ru.memory().size());
  EventBuildingStats stats;
  RuAgent agent(engine, ru, *ring, topo, stats, nullptr);
  auto cmd = [](CommandType t, uint32_t bu, uint32_t slot, uint32_t r) {
    return Command{.type = t, .event_id = 5, .slot = slot, .bu = bu, .ru = r};
  };
  using T = CommandType;
  // BU 1 (rank 1) asks for itself: served.
  EXPECT_EQ(refusal(agent, 1, cmd(T::pull_request, 1, 0, 0)), "accepted");
  EXPECT_EQ(driver.sends, std::vector<PeerId>{1});
  // Rank 1 asks on behalf of BU 0, the EVM pulls, a request for RU 1 reaches RU 0.
  EXPECT_NE(refusal(agent, 1, cmd(T::pull_request, 0, 0, 0)).find("refused"), std::string::npos);
  EXPECT_NE(refusal(agent, 2, cmd(T::pull_request, 1, 0, 0)).find("refused"), std::string::npos);
  EXPECT_NE(refusal(agent, 1, cmd(T::pull_request, 1, 0, 1)).find("refused"), std::string::npos);
  EXPECT_NE(refusal(agent, 1, cmd(T::pull_request, 1, 2, 0)).find("no valid BU slot"),
            std::string::npos);
  EXPECT_NE(refusal(agent, 1, cmd(T::pull_request, 7, 0, 0)).find("no valid BU slot"),
            std::string::npos);
  // Only the EVM assigns (PUSH) and stops.
  EXPECT_NE(refusal(agent, 1, cmd(T::push_assign, 1, 0, 0)).find("refused"), std::string::npos);
  EXPECT_EQ(refusal(agent, 2, cmd(T::push_assign, 1, 0, 0)), "accepted");
  EXPECT_NE(refusal(agent, 1, cmd(T::stop, 0, 0, 0)).find("a stop from rank 1 refused"),
            std::string::npos);
  // pull-noevm: each BU says it is done once, for itself.
  EXPECT_NE(refusal(agent, 1, cmd(T::bu_done, 0, 0, 0)).find("refused"), std::string::npos);
  EXPECT_EQ(refusal(agent, 1, cmd(T::bu_done, 1, 0, 0)), "accepted");
  EXPECT_NE(refusal(agent, 1, cmd(T::bu_done, 1, 0, 0)).find("refused"), std::string::npos);
  EXPECT_FALSE(agent.done());
  EXPECT_EQ(driver.sends, (std::vector<PeerId>{1, 1}));
}

TEST(Commands, EvmTakesCreditsOnlyForSlotsInTheRightState) {
  const Config c = two_nodes();
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  EventBuildingStats stats;
  pull::PullEvmAgent evm(engine, topo, stats, false);
  evm.start(0);
  auto credit = [](uint32_t bu, uint32_t slot, uint64_t event, bool finished) {
    return Command{.type = CommandType::credit,
                   .event_id = event,
                   .slot = slot,
                   .bu = bu,
                   .value = finished ? 1u : 0u};
  };
  EXPECT_EQ(refusal(evm, 0, credit(0, 0, 0, false)), "accepted");  // event 0 -> BU 0 slot 0
  EXPECT_EQ(refusal(evm, 1, credit(1, 0, 0, false)), "accepted");  // event 1 -> BU 1 slot 0
  EXPECT_NE(refusal(evm, 0, credit(1, 1, 0, false)).find("names another BU"), std::string::npos);
  EXPECT_NE(refusal(evm, 0, credit(0, 2, 0, false)).find("no valid slot"), std::string::npos);
  EXPECT_NE(refusal(evm, 0, credit(0, 0, 0, false)).find("holds an unfinished event"),
            std::string::npos);
  EXPECT_NE(refusal(evm, 0, credit(0, 1, 0, true)).find("holds no event"), std::string::npos);
  EXPECT_NE(refusal(evm, 0, credit(0, 0, 1, true)).find("another event"), std::string::npos);
  EXPECT_EQ(refusal(evm, 0, credit(0, 0, 0, true)), "accepted");  // finished; gets event 2
  EXPECT_EQ(driver.sends, (std::vector<PeerId>{0, 1, 0}));
}

}  // namespace
}  // namespace evb
