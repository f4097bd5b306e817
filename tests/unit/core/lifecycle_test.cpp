// Start-up and teardown moments (core/lifecycle.hpp): the phases add up to
// the launch-to-ready time, and a process's start lies in its past.
#include "core/lifecycle.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace evb {
namespace {

using namespace std::chrono_literals;

TEST(Lifecycle, PhasesFollowTheMomentsInOrder) {
  const auto launched = std::chrono::steady_clock::now() - 50ms;
  LifecycleClock clock(launched);  // joined: now
  std::this_thread::sleep_for(10ms);
  clock.connected();
  std::this_thread::sleep_for(10ms);
  clock.ready();
  clock.data_ended();
  std::this_thread::sleep_for(10ms);
  clock.shut_down();
  const Lifecycle l = clock.phases();
  EXPECT_GE(l.join_s, 0.050);
  EXPECT_GE(l.connect_s, 0.010);
  EXPECT_GE(l.setup_s, 0.010);
  EXPECT_GE(l.teardown_s, 0.010);
  EXPECT_DOUBLE_EQ(l.ready_s(), l.join_s + l.connect_s + l.setup_s);
}

TEST(Lifecycle, ProcessStartIsInThePast) {
  const auto start = process_start();
  const auto now = std::chrono::steady_clock::now();
  EXPECT_LE(start, now);
  // This test binary has not run for a day.
  EXPECT_LT(now - start, std::chrono::hours(24));
}

}  // namespace
}  // namespace evb
