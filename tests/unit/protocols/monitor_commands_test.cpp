// The monitor's commands are checked before they are used: a rank applies a
// run-time change only from the EVM's rank and only for knobs and units it
// has, with values in range; the EVM's rank takes a rank's stats only for
// the BU or RU that rank hosts. And the EVM's own control: credits and pause
// park slots (no assignment) until undone, at the next event boundary; it
// books the built events of each stretch between two changes.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <bit>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../support/command_outcome.hpp"
#include "../support/recording_driver.hpp"
#include "core/clock.hpp"
#include "core/topology.hpp"
#include "protocols/event_building/event_building_live.hpp"
#include "protocols/monitor/monitor_hub.hpp"
#include "protocols/monitor/monitor_reporter.hpp"
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
  c.fragment.max_size = 16384;
  c.ru_buffer = 1 << 20;
  c.monitor.port = 1;  // not served here: the agents only
  return c;
}

// The EVM's rank (2) of two_nodes(), with a driver that records its sends.
struct EvmRank {
  Config c = two_nodes();
  Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine{driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"}};
  EventBuildingStats stats;
  pull::PullEvmAgent evm{engine, topo, stats, false};
};

// A quiet hub on the EVM's rank, with the event builders' view of it.
MonitorHub evm_hub(Engine& engine, const Topology& topo, EvmAgent& evm, EventBuildingStats& stats,
                   MonitorState& state) {
  return MonitorHub(engine, topo,
                    std::make_unique<evb::EventBuildingHubView>(engine, topo, evm, stats), state,
                    {"pull", "tcp", "send"}, true);
}

MonitorHub evm_hub(EvmRank& r, MonitorState& state) {
  return evm_hub(r.engine, r.topo, r.evm, r.stats, state);
}

std::string outcome(Agent& a, PeerId from, const Command& cmd) {
  return test_support::command_outcome(a, from, cmd);
}

bool refused(const std::string& outcome) {
  return outcome.find("refused") != std::string::npos;
}

Command control(ControlKnob knob, uint64_t value, uint32_t ru = 0) {
  return Command{.type = CommandType::control,
                 .event_id = 10,
                 .slot = static_cast<uint32_t>(knob),
                 .ru = ru,
                 .value = value};
}

TEST(MonitorCommands, ARankTakesChangesOnlyFromTheEvmAndOnlyForItsUnits) {
  const Config c = two_nodes();
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)"});
  EventBuildingStats stats;
  ReadoutUnit ru(0, c);
  MonitorReporter reporter(
      engine, topo,
      std::make_unique<EventBuildingReporterView>(engine, topo, stats, ReportedUnits{.ru = &ru}));
  using K = ControlKnob;
  // Only the EVM's rank (2) sends changes; rank 1 is a peer like any other.
  EXPECT_TRUE(refused(outcome(reporter, 1, control(K::pause, 1))));
  EXPECT_FALSE(engine.paused());
  EXPECT_EQ(outcome(reporter, 2, control(K::pause, 1)), "accepted");
  EXPECT_TRUE(engine.paused());
  EXPECT_EQ(outcome(reporter, 2, control(K::pause, 0)), "accepted");
  EXPECT_FALSE(engine.paused());
  EXPECT_TRUE(refused(outcome(reporter, 2, control(K::pause, 7))));
  // parallel in 1..nodes; another command type on this channel is refused.
  EXPECT_TRUE(refused(outcome(reporter, 2, control(K::parallel, 0))));
  EXPECT_TRUE(refused(outcome(reporter, 2, control(K::parallel, 3))));
  EXPECT_EQ(outcome(reporter, 2, control(K::parallel, 2)), "accepted");
  EXPECT_TRUE(refused(outcome(reporter, 2, Command{.type = CommandType::stop})));
  // A rate factor for this rank's RU only, finite and positive, from its event on.
  const uint64_t half = std::bit_cast<uint64_t>(0.5);
  EXPECT_TRUE(refused(outcome(reporter, 2, control(K::rate_factor, half, 1))));
  EXPECT_TRUE(
      refused(outcome(reporter, 2, control(K::rate_factor, std::bit_cast<uint64_t>(-1.0)))));
  EXPECT_TRUE(refused(outcome(
      reporter, 2,
      control(K::rate_factor, std::bit_cast<uint64_t>(std::numeric_limits<double>::infinity())))));
  EXPECT_DOUBLE_EQ(ru.rate_factor(), 1.0);
  EXPECT_EQ(outcome(reporter, 2, control(K::rate_factor, half)), "accepted");
  EXPECT_DOUBLE_EQ(ru.rate_factor(), 0.5);
  EXPECT_EQ(ru.fragment(9).payload_size, 4096u);  // before the boundary: as at start
  EXPECT_EQ(ru.fragment(10).payload_size, 2048u);
  EXPECT_TRUE(refused(outcome(reporter, 2, control(static_cast<K>(9), 1))));
}

TEST(MonitorCommands, TheEvmTakesStatsOnlyForUnitsTheSenderHosts) {
  EvmRank r;
  MonitorState state("", ControlLimits{});
  MonitorHub hub = evm_hub(r, state);
  auto stat = [](MonitorStat kind, uint32_t bu, uint32_t ru, uint32_t count = 0) {
    return Command{.type = CommandType::stats,
                   .slot = static_cast<uint32_t>(kind),
                   .bu = bu,
                   .ru = ru,
                   .count = count,
                   .bytes = 100};
  };
  using S = MonitorStat;
  EXPECT_EQ(outcome(hub, 1, stat(S::bu, 1, 0)), "accepted");
  EXPECT_TRUE(refused(outcome(hub, 0, stat(S::bu, 1, 0))));  // rank 0 speaks for BU 1
  EXPECT_TRUE(refused(outcome(hub, 1, stat(S::bu, 5, 0))));  // no BU 5
  EXPECT_TRUE(refused(outcome(hub, 0, stat(S::ru, 0, 1))));  // rank 0 speaks for RU 1
  EXPECT_EQ(outcome(hub, 0, stat(S::ru, 0, 0)), "accepted");
  EXPECT_EQ(outcome(hub, 0, stat(S::matrix, 0, 0, 2)), "accepted");
  EXPECT_TRUE(refused(outcome(hub, 0, stat(S::matrix, 0, 1, 2))));  // RUs 1, 2 of 2
  EXPECT_TRUE(refused(outcome(hub, 0, stat(S::matrix, 0, 0, 0))));
  EXPECT_TRUE(refused(outcome(hub, 0, stat(S::matrix, 0, 0, 5))));
  EXPECT_TRUE(refused(outcome(hub, 0, stat(static_cast<S>(9), 0, 0))));
  EXPECT_TRUE(refused(outcome(hub, 0, Command{.type = CommandType::credit})));
}

// A stats record covering [start, end] of the sender's clock (seconds).
Command covering(Command c, double start, double end) {
  c.pad[0] = std::bit_cast<uint64_t>(s_to_ns(start));
  c.pad[1] = std::bit_cast<uint64_t>(s_to_ns(end));
  return c;
}

TEST(MonitorCommands, TheEvmRefusesUnsoundIntervals) {
  EvmRank r;
  MonitorState state("", ControlLimits{});
  MonitorHub hub = evm_hub(r, state);
  const Command bu{.type = CommandType::stats, .slot = 0, .bu = 0, .bytes = 100};
  EXPECT_TRUE(refused(outcome(hub, 0, covering(bu, 2, 1))));     // ends before it starts
  EXPECT_TRUE(refused(outcome(hub, 0, covering(bu, 0, 4000))));  // longer than an hour
  Command latency = covering(bu, 2, 1);
  latency.slot = static_cast<uint32_t>(MonitorStat::latency);
  EXPECT_TRUE(refused(outcome(hub, 0, latency)));
  EXPECT_EQ(outcome(hub, 0, covering(bu, 0, 1)), "accepted");
  EXPECT_TRUE(refused(outcome(hub, 0, covering(bu, 0.5, 2))));  // overlaps [0, 1]
  Command less = covering(bu, 1, 2);
  less.bytes = 99;
  EXPECT_TRUE(refused(outcome(hub, 0, less)));  // its counter went back
  EXPECT_EQ(outcome(hub, 0, covering(bu, 1, 2)), "accepted");
}

// The hub's ticks and the arrival of reports are not in step: a tick may
// see none of a BU's reports, the next two. The published rates are the
// BU's own, over its intervals: steady, and marked when carried forward.
TEST(MonitorCommands, RatesAreTheSendersOwnWhateverArrivesInATick) {
  EvmRank r;
  MonitorState state("", ControlLimits{}, 100);
  MonitorHub hub = evm_hub(r, state);
  hub.start(0);
  const double per_s = 1.25e9;  // bytes/s: 10 Gb/s
  int sent = 0;
  auto deliver = [&] {
    // Intervals of 0.9 to 1.1 s of BU 0's clock (a loaded sender ticks late).
    const double start = sent * 1.0 + (sent % 2 ? 0.1 : 0.0);
    const double end = (sent + 1) * 1.0 + (sent % 2 ? 0.0 : 0.1);
    const auto total = static_cast<uint64_t>(per_s * end);
    ++sent;
    const Command bu{.type = CommandType::stats, .slot = 0, .bu = 0, .bytes = total};
    const Command row{.type = CommandType::stats,
                      .event_id = total / 2,
                      .slot = static_cast<uint32_t>(MonitorStat::matrix),
                      .bu = 0,
                      .ru = 0,
                      .count = 2,
                      .bytes = total / 2};
    EXPECT_EQ(outcome(hub, 0, covering(bu, start, end)), "accepted");
    EXPECT_EQ(outcome(hub, 0, covering(row, start, end)), "accepted");
  };
  const int arrivals[] = {1, 1, 0, 2, 1, 0, 2, 1, 3, 0};
  bool seen_carried = false;
  for (size_t tick = 0; tick < std::size(arrivals); ++tick) {
    for (int k = 0; k < arrivals[tick]; ++k) deliver();
    hub.on_tick(s_to_ns(1.0 + static_cast<double>(tick)));
    if (tick == 0) continue;  // the baseline only
    const YAML::Node j = YAML::Load(state.state_json());
    const bool carried = arrivals[tick] == 0;
    seen_carried = seen_carried || carried;
    EXPECT_NEAR(j["bus"][0]["gbps"].as<double>(), per_s * 8 / 1e9, 1e-3) << tick;
    EXPECT_EQ(j["bus"][0]["rate_carried"].as<bool>(), carried) << tick;
    EXPECT_EQ(j["history"][j["history"].size() - 1]["bu_carried"][0].as<bool>(), carried) << tick;
    for (int ru = 0; ru < 2; ++ru)
      EXPECT_NEAR(j["matrix"]["gbps"][ru][0].as<double>(), per_s * 4 / 1e9, 1e-3) << tick;
    EXPECT_EQ(j["matrix"]["gbps"][0][1].as<double>(), 0.0);  // BU 1 never reported
  }
  EXPECT_TRUE(seen_carried);
}

// A refused record changes nothing the hub publishes: a matrix row is
// taken whole or not at all (found by fuzz/fuzz_monitor_stats.cpp: a row
// refused for its second cell kept its first).
TEST(MonitorCommands, ARefusedRowKeepsNoCell) {
  EvmRank r;
  MonitorState state("", ControlLimits{});
  MonitorHub hub = evm_hub(r, state);
  hub.start(0);
  // BU 0's bytes from RU 0 and RU 1 (cells [ru * 2 + 0]).
  auto row = [](uint64_t ru0, uint64_t ru1, double start, double end) {
    return covering(Command{.type = CommandType::stats,
                            .event_id = ru0,
                            .slot = static_cast<uint32_t>(MonitorStat::matrix),
                            .bu = 0,
                            .ru = 0,
                            .count = 2,
                            .bytes = ru1},
                    start, end);
  };
  EXPECT_EQ(outcome(hub, 0, row(100, 4000, 0, 1)), "accepted");
  EXPECT_TRUE(refused(outcome(hub, 0, row(150, 260, 1, 2))));  // RU 1's counter went back
  hub.on_tick(s_to_ns(1.0));
  MonitorSnapshot s = state.latest();
  EXPECT_EQ(s.eb.matrix[0], 100u);
  EXPECT_EQ(s.eb.matrix[2], 4000u);
  EXPECT_EQ(outcome(hub, 0, row(150, 4100, 1, 2)), "accepted");
  hub.on_tick(s_to_ns(2.0));
  s = state.latest();
  EXPECT_EQ(s.eb.matrix[0], 150u);
  EXPECT_DOUBLE_EQ(s.eb.matrix_rate[0], 50.0);  // bytes/s over [1, 2] of BU 0's clock
  EXPECT_DOUBLE_EQ(s.eb.matrix_rate[2], 100.0);
}

// A report older than the last one a unit sent (a transport that does not
// keep the order, or a peer replaying one) adds nothing, to the rate or to
// the figures published: a counter never goes back.
TEST(MonitorCommands, AnOlderReportChangesNoFigure) {
  EvmRank r;
  MonitorState state("", ControlLimits{});
  MonitorHub hub = evm_hub(r, state);
  hub.start(0);
  auto bu = [](uint64_t bytes, double start, double end) {
    return covering(Command{.type = CommandType::stats,
                            .event_id = bytes / 100,
                            .slot = 0,
                            .bu = 0,
                            .bytes = bytes},
                    start, end);
  };
  auto ru = [](uint64_t bytes, double start, double end) {
    return covering(Command{.type = CommandType::stats,
                            .event_id = bytes / 100,
                            .slot = static_cast<uint32_t>(MonitorStat::ru),
                            .ru = 1,
                            .bytes = bytes},
                    start, end);
  };
  auto row = [](uint64_t bytes, double start, double end) {
    return covering(Command{.type = CommandType::stats,
                            .event_id = bytes,
                            .slot = static_cast<uint32_t>(MonitorStat::matrix),
                            .bu = 0,
                            .ru = 0,
                            .count = 1},
                    start, end);
  };
  EXPECT_EQ(outcome(hub, 0, bu(3000, 1, 2)), "accepted");
  EXPECT_EQ(outcome(hub, 1, ru(5000, 1, 2)), "accepted");
  EXPECT_EQ(outcome(hub, 0, row(700, 1, 2)), "accepted");
  // The reports of [0, 1] arrive after those of [1, 2].
  EXPECT_EQ(outcome(hub, 0, bu(1000, 0, 1)), "accepted");
  EXPECT_EQ(outcome(hub, 1, ru(2000, 0, 1)), "accepted");
  EXPECT_EQ(outcome(hub, 0, row(300, 0, 1)), "accepted");
  hub.on_tick(s_to_ns(1.0));
  const MonitorSnapshot s = state.latest();
  EXPECT_EQ(s.eb.bus[0].bytes, 3000u);
  EXPECT_EQ(s.eb.bus[0].fragments, 30u);
  EXPECT_EQ(s.eb.rus[1].bytes, 5000u);
  EXPECT_EQ(s.eb.rus[1].fragments, 50u);
  EXPECT_EQ(s.eb.matrix[0], 700u);
}

// A congestor's record older than its last one is taken and changes
// nothing, as a BU's; an in-order one whose counters went back is refused.
TEST(MonitorCommands, ACongestorsOlderRecordChangesNoFigure) {
  Config c = two_nodes();
  BackgroundSpec b;
  b.ranks = 1;
  c.background.push_back(b);
  const Topology topo = make_topology(c);
  ASSERT_EQ(topo.processes(), 4);  // rank 3: the congestor
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy, {"rank 0", "rank 1", "rank 2 (EVM)", "rank 3"});
  EventBuildingStats stats;
  pull::PullEvmAgent evm(engine, topo, stats, false);
  MonitorState state("", ControlLimits{});
  MonitorHub hub = evm_hub(engine, topo, evm, stats, state);
  hub.start(0);
  auto record = [](uint64_t messages, uint64_t bytes, double start, double end) {
    return covering(Command{.type = CommandType::stats,
                            .event_id = messages,
                            .slot = static_cast<uint32_t>(MonitorStat::background),
                            .bu = 0,
                            .ru = 0,
                            .count = 1,
                            .bytes = bytes},
                    start, end);
  };
  EXPECT_EQ(outcome(hub, 3, record(9, 9000, 1, 2)), "accepted");
  EXPECT_EQ(outcome(hub, 3, record(4, 4000, 0, 1)), "accepted");  // older: adds nothing
  EXPECT_EQ(outcome(hub, 3, record(9, 10, 0, 1)), "accepted");
  EXPECT_TRUE(refused(outcome(hub, 3, record(8, 9500, 2, 3))));  // messages went back
  hub.on_tick(s_to_ns(1.0));
  const MonitorSnapshot s = state.latest();
  ASSERT_EQ(s.background.size(), 1u);
  EXPECT_EQ(s.background[0].messages, 9u);
  EXPECT_EQ(s.background[0].bytes, 9000u);
}

// An entry's counters are its ranks' summed, kept at the largest value
// rather than wrapping: two ranks claiming 2^63 messages each do not make
// the entry's count go back to 0 (found by fuzz/fuzz_monitor_stats.cpp).
TEST(MonitorCommands, ABackgroundEntrysCountersDoNotWrap) {
  Config c = two_nodes();
  BackgroundSpec b;
  b.ranks = 2;
  c.background.push_back(b);
  const Topology topo = make_topology(c);
  RecordingDriver driver;
  Engine engine(driver, 2, c, PollMode::busy,
                {"rank 0", "rank 1", "rank 2 (EVM)", "rank 3", "rank 4"});
  EventBuildingStats stats;
  pull::PullEvmAgent evm(engine, topo, stats, false);
  MonitorState state("", ControlLimits{});
  MonitorHub hub = evm_hub(engine, topo, evm, stats, state);
  hub.start(0);
  auto record = [](uint32_t member, uint64_t messages) {
    return covering(Command{.type = CommandType::stats,
                            .event_id = messages,
                            .slot = static_cast<uint32_t>(MonitorStat::background),
                            .bu = 0,
                            .ru = member,
                            .count = 1,
                            .bytes = messages},
                    0, 1);
  };
  const uint64_t half = uint64_t{1} << 63;
  EXPECT_EQ(outcome(hub, 3, record(0, half)), "accepted");
  hub.on_tick(s_to_ns(1.0));
  EXPECT_EQ(outcome(hub, 4, record(1, half)), "accepted");
  hub.on_tick(s_to_ns(2.0));
  const MonitorSnapshot s = state.latest();
  EXPECT_EQ(s.background[0].messages, UINT64_MAX);
  EXPECT_EQ(s.background[0].bytes, UINT64_MAX);
}

TEST(MonitorCommands, CreditsAndPauseParkSlotsUntilUndone) {
  EvmRank r;
  r.evm.start(0);
  auto offer = [](uint32_t bu, uint32_t slot) {
    return Command{.type = CommandType::credit, .slot = slot, .bu = bu};
  };
  r.evm.set_credits(1);
  EXPECT_EQ(outcome(r.evm, 0, offer(0, 0)), "accepted");
  EXPECT_EQ(outcome(r.evm, 0, offer(0, 1)), "accepted");  // slot 1 parked
  EXPECT_EQ(r.evm.next_event(), 1u);
  EXPECT_EQ(r.evm.held_slots(0), 1);
  r.evm.set_paused(true);
  EXPECT_EQ(outcome(r.evm, 1, offer(1, 0)), "accepted");  // parked while paused
  EXPECT_EQ(r.evm.next_event(), 1u);
  r.evm.set_paused(false);  // BU 1's slot 0 gets its event now; slot 1 of BU 0 stays parked
  EXPECT_EQ(r.evm.next_event(), 2u);
  EXPECT_EQ(r.evm.held_slots(1), 1);
  r.evm.set_credits(2);  // BU 0's slot 1 too
  EXPECT_EQ(r.evm.next_event(), 3u);
  EXPECT_EQ(r.evm.held_slots(0), 2);
  EXPECT_EQ(r.driver.sends, (std::vector<PeerId>{0, 1, 0}));
}

TEST(MonitorCommands, TheEvmBooksEachStretchBetweenChanges) {
  EvmRank r;
  r.evm.start(0);
  // count: the BU counted the finished event in its window (1) or not (0).
  auto finished = [](uint64_t event, uint64_t bytes, uint32_t in_window) {
    return Command{.type = CommandType::credit,
                   .event_id = event,
                   .slot = 0,
                   .bu = 0,
                   .count = in_window,
                   .bytes = bytes,
                   .value = 1};
  };
  ASSERT_EQ(r.stats.phases.size(), 1u);
  EXPECT_EQ(outcome(r.evm, 0, Command{.type = CommandType::credit, .slot = 0, .bu = 0}),
            "accepted");
  EXPECT_EQ(outcome(r.evm, 0, finished(0, 100, 1)), "accepted");
  EXPECT_EQ(outcome(r.evm, 0, finished(1, 50, 0)), "accepted");  // before the window: not in it
  r.evm.begin_phase(r.engine.t0_ns(), 1);
  EXPECT_EQ(outcome(r.evm, 0, finished(2, 70, 1)), "accepted");
  EXPECT_EQ(outcome(r.evm, 0, finished(3, 0, 0)), "accepted");  // corrupt: not built, not booked
  ASSERT_EQ(r.stats.phases.size(), 2u);
  EXPECT_EQ(r.stats.phases[0].events, 2u);
  EXPECT_EQ(r.stats.phases[0].bytes, 150u);
  EXPECT_EQ(r.stats.phases[0].window_events, 1u);
  EXPECT_EQ(r.stats.phases[0].window_bytes, 100u);
  EXPECT_EQ(r.stats.phases[1].first_control, 1u);
  EXPECT_EQ(r.stats.phases[1].events, 1u);
  EXPECT_EQ(r.stats.phases[1].window_bytes, 70u);
  // The flag is 0 or 1, and only on a credit that reports an event finished.
  EXPECT_TRUE(refused(outcome(r.evm, 0, finished(4, 10, 2))));
  EXPECT_TRUE(refused(
      outcome(r.evm, 1, Command{.type = CommandType::credit, .slot = 0, .bu = 1, .count = 1})));
}

}  // namespace
}  // namespace evb
