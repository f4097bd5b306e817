// A steered run's phases (protocols/common/control_phases.hpp): the EVM's
// books split at each change and clipped to the window, with the knobs in
// force and the headline's per-node rate; the configuration as the run
// ended; the credit's window flag from the BU, checked by the EVM.
#include "protocols/common/control_phases.hpp"

#include <gtest/gtest.h>

namespace evb {
namespace {

ControlRecord change(double t_s, const std::string& key, const std::string& value) {
  return ControlRecord{t_s, key, value, 0, "http"};
}

Config four_nodes() {
  Config c;
  c.nodes = 4;
  c.parallel = 4;
  c.credits = 2;
  return c;
}

TEST(ControlPhases, KnobsFollowTheRecordedValues) {
  ControlKnobs k = ControlKnobs::at_start(four_nodes());
  EXPECT_EQ(k.parallel, 4);
  EXPECT_EQ(k.ru_rate_factors, (std::vector<double>{1, 1, 1, 1}));
  k.apply(change(1, "parallel", "2"));
  k.apply(change(1, "credits", "1"));
  k.apply(change(1, "fu.processing_time", "0.002"));
  k.apply(change(1, "ru_rate_factors", "[1, 0.5, 0.25, 1e-05]"));
  k.apply(change(1, "pause", ""));
  EXPECT_EQ(k.parallel, 2);
  EXPECT_EQ(k.credits, 1);
  EXPECT_DOUBLE_EQ(k.processing_time_s, 0.002);
  EXPECT_EQ(k.ru_rate_factors, (std::vector<double>{1, 0.5, 0.25, 1e-05}));
  EXPECT_TRUE(k.paused);
  k.apply(change(2, "resume", ""));
  EXPECT_FALSE(k.paused);
}

TEST(ControlPhases, TheWindowIsSplitAtEachChange) {
  // Window 0.5-3.0 s; parallel 4 -> 2 at 1.5 s. The EVM's first book began
  // at t0, inside the warm-up: its window part starts at 0.5 s.
  const std::vector<ControlRecord> control = {change(1.5, "parallel", "2")};
  const std::vector<PhaseBook> books = {{0.0, 0, 1200, 1200'000'000, 1000, 1000'000'000},
                                        {1.5, 1, 900, 900'000'000, 850, 850'000'000}};
  const auto phases =
      split_phases(books, control, ControlKnobs::at_start(four_nodes()), 0.5, 3.0, false, 4);
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_DOUBLE_EQ(phases[0].from_s, 0.5);
  EXPECT_DOUBLE_EQ(phases[0].to_s, 1.5);
  EXPECT_EQ(phases[0].settings.parallel, 4);
  EXPECT_EQ(phases[0].events, 1000u);  // those the BUs counted in their window
  EXPECT_DOUBLE_EQ(phases[0].event_rate, 1000.0);
  EXPECT_DOUBLE_EQ(phases[0].rate_gbps, 1e9 * 8 / 1.0 / 4 / 1e9);
  EXPECT_DOUBLE_EQ(phases[1].from_s, 1.5);
  EXPECT_DOUBLE_EQ(phases[1].to_s, 3.0);
  EXPECT_EQ(phases[1].settings.parallel, 2);
  EXPECT_EQ(phases[1].events, 850u);
  EXPECT_DOUBLE_EQ(phases[1].rate_gbps, 0.85e9 * 8 / 1.5 / 4 / 1e9);
}

TEST(ControlPhases, AWholeRunCountsEveryBuiltEvent) {
  const std::vector<ControlRecord> control = {change(0.2, "credits", "1")};
  const std::vector<PhaseBook> books = {{0.0, 0, 10, 100, 0, 0}, {0.2, 1, 30, 300, 0, 0}};
  const auto phases =
      split_phases(books, control, ControlKnobs::at_start(four_nodes()), 0.0, 0.4, true, 4);
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_EQ(phases[0].events + phases[1].events, 40u);
  EXPECT_EQ(phases[1].settings.credits, 1);
}

TEST(ControlPhases, NoChangeNoPhases) {
  const std::vector<PhaseBook> books = {{0.0, 0, 10, 100, 10, 100}};
  EXPECT_TRUE(
      split_phases(books, {}, ControlKnobs::at_start(four_nodes()), 0, 1, false, 4).empty());
}

TEST(ControlPhases, EventsOutsideEveryStretchGoToANeighbour) {
  // A change in the warm-up (0.2 s) leaves one phase under the new knobs;
  // two changes at one moment (2.0 s) leave no empty phase; credits that
  // arrive after the window's end (3.01 s) count in the last phase.
  const std::vector<ControlRecord> control = {
      change(0.2, "parallel", "3"), change(2.0, "parallel", "1"), change(2.0, "credits", "1")};
  const std::vector<PhaseBook> books = {{0.0, 0, 5, 50, 0, 0},
                                        {0.2, 1, 100, 1000, 90, 900},
                                        {2.0, 2, 0, 0, 3, 30},
                                        {2.0, 3, 60, 600, 55, 550},
                                        {3.01, 3, 2, 20, 2, 20}};
  const auto phases =
      split_phases(books, control, ControlKnobs::at_start(four_nodes()), 0.5, 3.0, false, 4);
  ASSERT_EQ(phases.size(), 2u);
  EXPECT_DOUBLE_EQ(phases[0].from_s, 0.5);
  EXPECT_EQ(phases[0].settings.parallel, 3);
  EXPECT_EQ(phases[0].events, 90u);
  EXPECT_DOUBLE_EQ(phases[1].from_s, 2.0);
  EXPECT_DOUBLE_EQ(phases[1].to_s, 3.0);
  EXPECT_EQ(phases[1].settings.parallel, 1);
  EXPECT_EQ(phases[1].settings.credits, 1);
  EXPECT_EQ(phases[1].events, 3u + 55u + 2u);
  EXPECT_EQ(phases[1].bytes, 30u + 550u + 20u);
}

TEST(ControlPhases, APauseIsAPhaseOfItsOwn) {
  const std::vector<ControlRecord> control = {change(1.0, "pause", ""), change(1.5, "resume", "")};
  const std::vector<PhaseBook> books = {
      {0.0, 0, 100, 1000, 100, 1000}, {1.0, 1, 4, 40, 4, 40}, {1.5, 2, 60, 600, 60, 600}};
  const auto phases =
      split_phases(books, control, ControlKnobs::at_start(four_nodes()), 0.0, 2.0, false, 4);
  ASSERT_EQ(phases.size(), 3u);
  EXPECT_FALSE(phases[0].settings.paused);
  EXPECT_TRUE(phases[1].settings.paused);
  EXPECT_FALSE(phases[2].settings.paused);
  EXPECT_EQ(steered_knobs(control), (std::vector<std::string>{"paused"}));
  EXPECT_EQ(settings_text(phases[1].settings, steered_knobs(control)), "paused=yes");
}

TEST(ControlPhases, AChangeBackMergesNothingButNeighbours) {
  // parallel 4 -> 4 (a request that changed nothing) merges with the stretch before.
  const std::vector<ControlRecord> control = {change(1.0, "parallel", "4")};
  const std::vector<PhaseBook> books = {{0.0, 0, 10, 100, 10, 100}, {1.0, 1, 20, 200, 20, 200}};
  const auto phases =
      split_phases(books, control, ControlKnobs::at_start(four_nodes()), 0.0, 2.0, false, 4);
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_EQ(phases[0].events, 30u);
  EXPECT_DOUBLE_EQ(phases[0].to_s, 2.0);
}

TEST(ControlPhases, TheConfigurationEndsWithTheLastValues) {
  const Config c = four_nodes();
  const Config ended =
      config_as_ended(c, {change(1, "parallel", "2"), change(2, "parallel", "3"),
                          change(2, "credits", "1"), change(3, "fu.processing_time", "0.001"),
                          change(4, "ru_rate_factors", "[1, 1, 0.5, 1]"), change(5, "pause", "")});
  EXPECT_EQ(ended.parallel, 3);
  EXPECT_EQ(ended.credits, 1);
  EXPECT_DOUBLE_EQ(ended.fu.processing_time_s, 0.001);
  EXPECT_EQ(ended.ru_rate_factors, (std::vector<double>{1, 1, 0.5, 1}));
  // Without changes it is the configuration itself (ru_rate_factors stays unset).
  const Config same = config_as_ended(c, {});
  EXPECT_EQ(same.parallel, 4);
  EXPECT_TRUE(same.ru_rate_factors.empty());
}

TEST(ControlPhases, SettingsShowTheKnobsThatWereTurned) {
  const std::vector<ControlRecord> control = {change(1, "ru_rate_factors", "[1, 0.5]"),
                                              change(2, "parallel", "2")};
  const std::vector<std::string> keys = steered_knobs(control);
  EXPECT_EQ(keys, (std::vector<std::string>{"parallel", "ru_rate_factors"}));
  ControlKnobs k;
  k.parallel = 2;
  k.ru_rate_factors = {1, 0.5};
  EXPECT_EQ(settings_text(k, keys), "parallel=2 ru_rate_factors=[1,0.5]");
}

TEST(ControlPhases, BackgroundSwitchesAreAKnobPerEntry) {
  Config c = four_nodes();
  EXPECT_TRUE(ControlKnobs::at_start(c).background.empty());  // no background: no such knob
  c.background.resize(2);
  ControlKnobs k = ControlKnobs::at_start(c);
  EXPECT_EQ(k.background, (std::vector<bool>{true, true}));
  const std::vector<ControlRecord> control = {change(1, "background.2.active", "false"),
                                              change(2, "parallel", "2")};
  k.apply(control[0]);
  EXPECT_EQ(k.background, (std::vector<bool>{true, false}));
  k.apply(change(3, "background.9.active", "false"));  // outside the run: ignored
  EXPECT_EQ(k.background, (std::vector<bool>{true, false}));
  EXPECT_EQ(knob_of(control[0]), "background");
  const std::vector<std::string> keys = steered_knobs(control);
  EXPECT_EQ(keys, (std::vector<std::string>{"parallel", "background"}));
  EXPECT_EQ(settings_text(k, keys), "parallel=4 background=[on,off]");
  k.apply(change(4, "background.2.active", "true"));
  EXPECT_EQ(k.background, (std::vector<bool>{true, true}));
}

TEST(ControlPhases, AStoppedBackgroundIsAPhaseOfItsOwn) {
  Config c = four_nodes();
  c.background.resize(1);
  const std::vector<ControlRecord> control = {change(2, "background.1.active", "false"),
                                              change(4, "background.1.active", "true")};
  // Books: from_s, the changes in force, events and bytes, those of the window.
  const std::vector<PhaseBook> books = {
      {0, 0, 100, 400, 100, 400}, {2, 1, 50, 200, 50, 200}, {4, 2, 100, 400, 100, 400}};
  const std::vector<ControlPhase> p =
      split_phases(books, control, ControlKnobs::at_start(c), 0, 6, false, 4);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].settings.background, (std::vector<bool>{true}));
  EXPECT_EQ(p[1].settings.background, (std::vector<bool>{false}));
  EXPECT_EQ(p[2].settings.background, (std::vector<bool>{true}));
  EXPECT_EQ(p[1].events, 50u);
}

}  // namespace
}  // namespace evb
