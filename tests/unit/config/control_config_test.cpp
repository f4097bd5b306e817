// The `control:` list: timed run-time changes, kept as `at` plus the body a
// POST /control takes, sorted by time, written back in canonical form, and
// refused at validation with the entry, the key and the limit named (the
// monitor's parser, run by the event builders' rule).
#include <gtest/gtest.h>

#include "config_error_of.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

using ControlConfig = test::WithDefaultDriver;

using test::error_of;

TEST_F(ControlConfig, EntriesAreSortedByTimeAndRoundTrip) {
  const Config c = load_config_text(
      "nodes: 3\ncontrol:\n  - {at: 2s, credits: 1}\n  - {at: 500ms, parallel: 2}\n"
      "  - {at: 1s, ru_rate_factors: [1, 0.5, 1], fu.processing_time: 2ms}\n",
      "run.yaml", {}, test::real_plugins());
  ASSERT_EQ(c.control.size(), 3u);
  EXPECT_DOUBLE_EQ(c.control[0].at_s, 0.5);
  EXPECT_EQ(c.control[0].body, "{parallel: 2}");
  EXPECT_DOUBLE_EQ(c.control[1].at_s, 1.0);
  EXPECT_NE(c.control[1].body.find("ru_rate_factors: [1, 0.5, 1]"), std::string::npos);
  EXPECT_DOUBLE_EQ(c.control[2].at_s, 2.0);
  const Config back = load_config_text(to_yaml(c), "resolved.yaml", {}, test::real_plugins());
  ASSERT_EQ(back.control.size(), 3u);
  EXPECT_EQ(back.control[1].body, c.control[1].body);
  EXPECT_EQ(to_yaml(back), to_yaml(c));
  EXPECT_NE(to_json(c).find("\"control\":[{\"at\":0.5,\"parallel\":2}"), std::string::npos);
}

TEST_F(ControlConfig, ShapeErrorsNameTheEntry) {
  EXPECT_HAS(error_of("control: {at: 1s}\n"), "expected a list of timed changes");
  EXPECT_HAS(error_of("control: [{parallel: 2}]\n"), "entry 1: at: missing");
  EXPECT_HAS(error_of("control: [{at: soon, parallel: 2}]\n"), "entry 1: at:");
  EXPECT_HAS(error_of("control: [{at: 1s}]\n"), "entry 1: names nothing to change");
  EXPECT_HAS(error_of("control: [{at: 1s, parallel: 2}, 3]\n"), "entry 2: expected a map");
  EXPECT_HAS(error_of("control: [{at: 1s, parallel: {a: 1}}]\n"), "entry 1: parallel:");
}

TEST_F(ControlConfig, LimitsAreTheMonitorsAndNameTheEntry) {
  EXPECT_HAS(error_of("nodes: 3\ncontrol: [{at: 1s, credits: 9}]\n"),
             "entry 1 (at 1 s): credits: 9 exceeds");
  EXPECT_HAS(error_of("nodes: 3\ncontrol: [{at: 1s, parallel: 4}]\n"), "parallel");
  EXPECT_HAS(error_of("control: [{at: 1s, paralel: 2}]\n"), "paralel");
  EXPECT_HAS(error_of("control: [{at: 1s, pause: true, resume: true}]\n"), "entry 1");
  EXPECT_HAS(error_of("protocol: push\ncontrol: [{at: 1s, parallel: 2}]\n"),
             "does not read parallel");
  EXPECT_HAS(error_of("control: [{at: 1s, credits: 9}]\n"), "run.yaml:");
}

TEST_F(ControlConfig, MonitorBindIsAnAddress) {
  EXPECT_HAS(error_of("monitor: {port: 9464, bind: evm-host}\n"), "monitor.bind");
  EXPECT_HAS(error_of("monitor: {port: 9464, bind: evm-host}\n"), "is not an IP address");
  EXPECT_EQ(error_of("monitor: {port: 9464, bind: 0.0.0.0}\n"), "");
  EXPECT_EQ(error_of("monitor: {port: 9464, bind: '::1'}\n"), "");
  EXPECT_EQ(error_of("monitor: {bind: evm-host}\n"), "");  // no monitor: not read
}

TEST_F(ControlConfig, NeedsAnEvm) {
  EXPECT_HAS(error_of("protocol: pull-noevm\ncontrol: [{at: 1s, credits: 1}]\n"),
             "run-time changes are applied by the EVM's rank");
}

}  // namespace
}  // namespace evb
