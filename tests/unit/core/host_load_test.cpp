// The /proc and cpufreq parsers of core/host_load.hpp on sample text (from
// kernels with every column, and with the four oldest), and the readings'
// flat form that travels to rank 0.
#include "core/host_load.hpp"

#include <gtest/gtest.h>

namespace evb {
namespace {

// A 2-CPU host's /proc/stat (Linux 6.1): user nice system idle iowait irq
// softirq steal guest guest_nice.
constexpr const char* kProcStat =
    "cpu  1158988 593708 590159 595154 2444 0 56504 7058 300 20\n"
    "cpu0 568312 275494 290874 332656 746 0 28391 3540 150 10\n"
    "cpu1 590675 318214 299285 262497 1698 0 28112 3518 150 10\n"
    "intr 23475350 0 0 0\n"
    "ctxt 113755733\n"
    "btime 1700000000\n"
    "processes 10895\n";

TEST(HostLoad, ProcStatSumsBusyStealAndTotalAndCountsCpus) {
  const auto t = parse_proc_stat(kProcStat);
  ASSERT_TRUE(t);
  // Guest time (300, 20) is inside user and nice already: not added again.
  EXPECT_EQ(t->busy, 1158988u + 593708u + 590159u + 0u + 56504u);
  EXPECT_EQ(t->steal, 7058u);
  EXPECT_EQ(t->total, t->busy + 595154u + 2444u + 7058u);
  EXPECT_EQ(t->cpus, 2);
}

TEST(HostLoad, ProcStatOfAnOldKernelHasNoStealColumn) {
  const auto t = parse_proc_stat("cpu 10 20 30 40\ncpu0 10 20 30 40\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->busy, 60u);
  EXPECT_EQ(t->steal, 0u);
  EXPECT_EQ(t->total, 100u);
  EXPECT_EQ(t->cpus, 1);
}

TEST(HostLoad, ProcStatWithoutAnAggregateLineIsNotRead) {
  EXPECT_FALSE(parse_proc_stat(""));
  EXPECT_FALSE(parse_proc_stat("cpu0 1 2 3 4\nintr 5\n"));
  EXPECT_FALSE(parse_proc_stat("cpu 1 2 3\n"));  // fewer than four fields
  EXPECT_FALSE(parse_proc_stat("cpu x y z w\n"));
}

TEST(HostLoad, ProcStatCountsOnlyCpuLinesWithANumber) {
  const auto t = parse_proc_stat("cpu 1 1 1 1\ncpu0 1 1 1 1\ncpu7 1 1 1 1\ncpufoo 1\n");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->cpus, 2);
}

TEST(HostLoad, LoadAverageIsTheFirstField) {
  EXPECT_DOUBLE_EQ(*parse_loadavg("7.45 4.73 3.77 9/122 10895\n"), 7.45);
  EXPECT_DOUBLE_EQ(*parse_loadavg("0.00 0.01 0.05 1/80 1\n"), 0.0);
  EXPECT_FALSE(parse_loadavg(""));
  EXPECT_FALSE(parse_loadavg("n/a\n"));
}

TEST(HostLoad, FrequencyIsKilohertzInTheFile) {
  EXPECT_DOUBLE_EQ(*parse_freq_mhz("2400000\n"), 2400.0);
  EXPECT_DOUBLE_EQ(*parse_freq_mhz("800500"), 800.5);
  // A driver without a current frequency writes nothing readable.
  EXPECT_FALSE(parse_freq_mhz("<unknown>\n"));
  EXPECT_FALSE(parse_freq_mhz("0\n"));
  EXPECT_FALSE(parse_freq_mhz(""));
}

TEST(HostLoad, AWindowSurvivesItsFlatForm) {
  HostLoadWindow w;
  w.measured = true;
  w.start.t_ns = 14'000'000'123'456;
  w.start.loadavg = 1.5;
  w.start.ticks = CpuTicks{1000, 7, 5000, 16};
  w.start.ticks_per_s = 100;
  w.start.own_cpu_s = 0.25;
  w.end = w.start;
  w.end.t_ns += 1'000'000'000;
  w.end.ticks = CpuTicks{1200, 9, 6600, 16};
  w.end.freq_mhz = 2400.5;
  w.end.loadavg.reset();
  const HostLoadWindow back = from_numbers(to_numbers(w));
  ASSERT_TRUE(back.measured);
  EXPECT_EQ(back.start.t_ns, w.start.t_ns);
  EXPECT_EQ(back.end.t_ns, w.end.t_ns);
  EXPECT_DOUBLE_EQ(*back.start.loadavg, 1.5);
  EXPECT_FALSE(back.end.loadavg);
  EXPECT_EQ(back.end.ticks->busy, 1200u);
  EXPECT_EQ(back.end.ticks->steal, 9u);
  EXPECT_EQ(back.end.ticks->total, 6600u);
  EXPECT_EQ(back.end.ticks->cpus, 16);
  EXPECT_EQ(back.start.ticks_per_s, 100);
  EXPECT_DOUBLE_EQ(back.start.own_cpu_s, 0.25);
  EXPECT_FALSE(back.start.freq_mhz);
  EXPECT_DOUBLE_EQ(*back.end.freq_mhz, 2400.5);
}

TEST(HostLoad, AWindowNotTakenStaysNotTaken) {
  EXPECT_TRUE(to_numbers(HostLoadWindow{}).empty());
  EXPECT_FALSE(from_numbers({}).measured);
  EXPECT_FALSE(from_numbers({1, 2, 3}).measured);
}

TEST(HostLoad, ThisHostCanBeRead) {
  // Linux: /proc/stat and /proc/loadavg are always there.
  const HostLoadReading r = read_host_load();
  ASSERT_TRUE(r.ticks);
  EXPECT_GE(r.ticks->cpus, 1);
  EXPECT_GE(r.ticks->total, r.ticks->busy);
  EXPECT_TRUE(r.loadavg);
  EXPECT_GT(r.ticks_per_s, 0);
  EXPECT_GE(r.own_cpu_s, 0.0);
}

}  // namespace
}  // namespace evb
