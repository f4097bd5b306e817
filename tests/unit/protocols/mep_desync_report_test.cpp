// How a BU names an RU out of sync in a MEP whose label moved (a desync
// backwards, or by fragment.events or more): the header is then a MEP too
// early or too late, and the report gives events, as for a wrong event
// inside a MEP: the first event the fragment carries where the MEP's first
// belongs (stderr, results.integrity.first_problem, the kept file's name),
// never MEP numbers worded as events. The protocol's own handling (the PUSH
// BU's question, the EVM's answer) stays in MEP numbers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "../support/command_outcome.hpp"
#include "../support/recording_driver.hpp"
#include "core/topology.hpp"
#include "protocols/push/push.hpp"
#include "units/fragment_sizes.hpp"
#include "units/readout_unit.hpp"

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
  const Topology topo = make_topology(c);
  test_support::RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  EventBuildingStats stats;
  BuilderUnit bu(0, c);
  FilterUnits fus(0, c);
  auto windows = driver.register_memory(bu.memory().data(), bu.memory().size());
  push::PushBuAgent agent(engine, bu, fus, *windows, topo, stats, false, false);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("evb-mep-desync-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  agent.keep_fragments_in(dir.string());
  agent.start(0);
  ReadoutUnit ru0(0, c), ru1(1, c);
  ru1.desync(-2);  // MEP 5 from RU 1: events 38 .. 45, labelled MEP 4
  auto arrive = [&](ReadoutUnit& ru, PeerId from) {
    const FragmentView f = ru.fragment(5);
    uint8_t* w = bu.window(0, ru.index());
    ru.fill_header(*reinterpret_cast<FragmentHeader*>(w), f, 5, 0);
    const size_t body = meta_bytes(c) + f.payload_size;
    std::memcpy(w + ru.head_bytes(), f.meta, body);
    const uint64_t cookie = Engine::make_cookie(1, static_cast<uint64_t>(ru.index()));
    agent.on_completion(
        Completion{cookie, OpType::recv, OpStatus::ok, from, data_tag(0), ru.head_bytes() + body});
  };
  arrive(ru0, 0);
  arrive(ru1, 1);
  const Command asked = driver.commands.back();  // in MEP numbers, as the EVM assigned
  ASSERT_EQ(asked.type, CommandType::desync);
  EXPECT_EQ(asked.event_id, 4u);
  EXPECT_EQ(asked.value, 5u);
  const Command answer{
      .type = CommandType::desync, .event_id = 5, .slot = 0, .bu = 0, .ru = 1, .value = 4};
  ASSERT_EQ(test_support::command_outcome(agent, 2, answer), "accepted");
  EXPECT_EQ(bu.integrity().out_of_sync, 1u);
  EXPECT_EQ(bu.integrity().corrupt, 0u);
  EXPECT_EQ(bu.first_problem(),
            "BU 0: RU 1 (rank 1) is out of sync: its fragment for MEP 5 carries event 38 where "
            "event 40 belongs");
  EXPECT_TRUE(std::filesystem::exists(dir / "evbench-desync-ru1-bu0-event40-labelled38.frag"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace evb
