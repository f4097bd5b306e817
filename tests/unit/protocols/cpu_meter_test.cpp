// CpuMeter (results.cost's EVM CPU time): stretches are timed on the
// monotonic clock and charged at the CPU share of the window around them,
// which costs two thread-CPU clock reads per window, not per stretch.
// Both clocks are fakes here, moved by hand.
#include "protocols/common/cpu_meter.hpp"

#include <gtest/gtest.h>

namespace evb {
namespace {

int64_t g_cpu = 0;
int64_t g_wall = 0;
int64_t g_wall_step = 0;  // added to the wall clock at every read
int g_cpu_reads = 0;

int64_t fake_cpu() {
  ++g_cpu_reads;
  return g_cpu;
}
int64_t fake_wall() {
  g_wall += g_wall_step;
  return g_wall;
}

// Both clocks move by `ns` (the thread on the CPU), or only the wall clock.
void run_for(int64_t ns) {
  g_cpu += ns;
  g_wall += ns;
}
void off_cpu_for(int64_t ns) {
  g_wall += ns;
}

class CpuMeterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_cpu = 1'000'000;
    g_wall = 5'000'000;
    g_wall_step = 0;
    g_cpu_reads = 0;
  }
  static CpuMeter meter() { return CpuMeter(CpuMeter::Clocks{&fake_cpu, &fake_wall}); }
};

TEST_F(CpuMeterTest, OnTheCpuAllAlongStretchesAreChargedTheirTimeAndGapsNothing) {
  CpuMeter m = meter();
  m.begin();
  run_for(100);
  m.end();
  run_for(50);  // polling, another agent
  m.begin();
  run_for(200);
  m.end();
  EXPECT_EQ(m.net_ns(), 0u);  // the window is open
  m.rest();
  EXPECT_EQ(m.net_ns(), 300u);
  EXPECT_EQ(m.stretches(), 2u);
  EXPECT_EQ(m.windows(), 1u);
  EXPECT_EQ(m.off_cpu_ns(), 0u);
}

TEST_F(CpuMeterTest, APreemptedWindowChargesItsStretchesTheirShareOfTheCpu) {
  CpuMeter m = meter();
  m.begin();
  run_for(100);
  off_cpu_for(500);  // preempted inside the stretch
  m.end();
  run_for(200);
  m.begin();
  run_for(200);
  m.end();
  m.rest();
  // Window: 1000 ns wall, 500 ns CPU; stretches 800 ns wall -> 400 ns.
  EXPECT_EQ(m.net_ns(), 400u);
  EXPECT_EQ(m.off_cpu_ns(), 500u);
}

TEST_F(CpuMeterTest, TheChargedTimeNeverFallsAsPreemptedWindowsClose) {
  // The monitor publishes net_ns() as a counter (evbench_evm_cpu_seconds_total).
  CpuMeter m = meter();
  uint64_t last = 0;
  for (int i = 0; i < 20; ++i) {
    m.begin();
    run_for(CpuMeter::kWindowNs / 8);
    if (i % 3 == 0) off_cpu_for(CpuMeter::kWindowNs / 2);
    m.end();
    EXPECT_GE(m.net_ns(), last);
    last = m.net_ns();
  }
  m.rest();
  EXPECT_GE(m.net_ns(), last);
  EXPECT_GT(m.net_ns(), 0u);
  // No gaps: the windows were all stretches, and are charged their CPU time.
  EXPECT_EQ(m.net_ns(), static_cast<uint64_t>(20 * (CpuMeter::kWindowNs / 8)));
  EXPECT_EQ(m.off_cpu_ns(), static_cast<uint64_t>(7 * (CpuMeter::kWindowNs / 2)));
}

TEST_F(CpuMeterTest, TheThreadCpuClockIsReadAtTheWindowsEndsNotPerStretch) {
  CpuMeter m = meter();
  for (int i = 0; i < 100; ++i) {
    m.begin();
    run_for(10);
    m.end();
    run_for(5);
  }
  EXPECT_EQ(g_cpu_reads, 1);  // the open window's start
  m.rest();
  EXPECT_EQ(g_cpu_reads, 2);
  EXPECT_EQ(m.net_ns(), 1000u);
  m.rest();  // no window open: nothing read
  EXPECT_EQ(g_cpu_reads, 2);
  m.begin();  // the next stretch opens the next window
  run_for(10);
  m.end();
  m.rest();
  EXPECT_EQ(g_cpu_reads, 4);
  EXPECT_EQ(m.windows(), 2u);
  EXPECT_EQ(m.net_ns(), 1010u);
}

TEST_F(CpuMeterTest, AWindowClosesAtTheFirstStretchEndAWindowLengthAfterItOpened) {
  CpuMeter m = meter();
  const int64_t step = CpuMeter::kWindowNs / 4;
  for (int i = 0; i < 4; ++i) {
    m.begin();
    run_for(step / 2);
    m.end();
    run_for(step / 2);
    EXPECT_EQ(m.windows(), 0u);
  }
  m.begin();  // 4 steps after the window opened, at its end
  run_for(10);
  m.end();
  EXPECT_EQ(m.windows(), 1u);
  EXPECT_EQ(m.net_ns(), static_cast<uint64_t>(2 * step + 10));
}

TEST_F(CpuMeterTest, EndLoopChargesTheOpenWindowAndTimesTheWholeLoop) {
  CpuMeter m = meter();
  m.begin_loop();
  run_for(1000);
  m.begin();
  run_for(300);
  off_cpu_for(300);
  m.end();
  run_for(300);
  m.end_loop();
  EXPECT_EQ(m.windows(), 1u);
  EXPECT_EQ(m.net_ns(), 400u);  // 600 wall x 600 CPU / 900 wall
  EXPECT_EQ(m.loop_ns(), 1600u);
}

TEST_F(CpuMeterTest, TheClocksShareInEveryStretchIsTakenOut) {
  g_wall_step = 20;  // every read of the wall clock takes 20 ns
  CpuMeter m = meter();
  EXPECT_DOUBLE_EQ(m.overhead_ns(), 20);
  g_wall_step = 0;
  m.begin();
  run_for(20 + 100);  // the clock's share and the work
  m.end();
  m.begin();
  run_for(20 + 30);
  m.end();
  m.rest();
  EXPECT_EQ(m.net_ns(), 130u);  // the window: 170 less 2 x 20
}

TEST(CpuMeterCharge, IsTheStretchesWallTimeTimesTheWindowsCpuShareAtMostOne) {
  EXPECT_DOUBLE_EQ(CpuMeter::charge(300, 500, 1000), 150);
  EXPECT_DOUBLE_EQ(CpuMeter::charge(300, 1000, 1000), 300);
  EXPECT_DOUBLE_EQ(CpuMeter::charge(300, 1010, 1000), 300);  // clocks' rounding
  EXPECT_DOUBLE_EQ(CpuMeter::charge(300, 0, 0), 300);
  EXPECT_DOUBLE_EQ(CpuMeter::charge(300, -5, 1000), 0);
  EXPECT_DOUBLE_EQ(CpuMeter::charge(0, 500, 1000), 0);
}

TEST(CpuMeterReal, ChargesNoMoreThanTheThreadsCpuTime) {
  CpuMeter m;
  const int64_t cpu0 = CpuMeter::thread_cpu_ns();
  volatile uint64_t sink = 0;
  for (int i = 0; i < 50; ++i) {
    m.begin();
    for (int j = 0; j < 10000; ++j) sink = sink + static_cast<uint64_t>(j);
    m.end();
  }
  m.rest();
  const int64_t cpu = CpuMeter::thread_cpu_ns() - cpu0;
  EXPECT_GT(m.net_ns(), 0u);
  EXPECT_LE(m.net_ns(), static_cast<uint64_t>(cpu));
  EXPECT_EQ(m.stretches(), 50u);
}

}  // namespace
}  // namespace evb
