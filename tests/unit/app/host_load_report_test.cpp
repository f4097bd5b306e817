// results.host_load from the ranks' readings (apps/evbench/host_load_report.hpp):
// one entry per host; the ranks of the run on a host are ours, the rest of
// the host's busy time is the other processes'; a host's window runs from
// its earliest reading to its latest; what could not be read stays null.
#include "apps/evbench/host_load_report.hpp"

#include <gtest/gtest.h>

namespace evb {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

HostLoadReading reading(int64_t t_ns, uint64_t busy, uint64_t steal, uint64_t total,
                        double own_cpu_s) {
  HostLoadReading r;
  r.t_ns = t_ns;
  r.loadavg = 1.0;
  r.ticks = CpuTicks{busy, steal, total, 4};
  r.ticks_per_s = 100;
  r.own_cpu_s = own_cpu_s;
  return r;
}

RankStats rank(int id, const std::string& host, HostLoadReading start, HostLoadReading end) {
  RankStats r;
  r.rank = id;
  r.host = host;
  r.host_load.measured = true;
  r.host_load.start = start;
  r.host_load.end = end;
  return r;
}

TEST(HostLoadReport, OtherProcessesAreTheHostsBusyTimeBeyondOurRanks) {
  // 4 CPUs for 2 s: 800 ticks in all. The host was busy 500 ticks (5 CPU
  // seconds); our two ranks used 1.5 + 1.5 s of it, so others used 2 s.
  const std::vector<RankStats> ranks = {
      rank(0, "a", reading(10 * kSecond, 1000, 10, 5000, 0.5),
           reading(12 * kSecond, 1400, 30, 5700, 2.0)),
      rank(1, "a", reading(10 * kSecond + 1000, 1000, 10, 5000, 0.0),
           reading(12 * kSecond - 1000, 1500, 50, 5800, 1.5)),
  };
  const std::vector<HostLoad> hosts = summarize_host_load(ranks);
  ASSERT_EQ(hosts.size(), 1u);
  const HostLoad& h = hosts[0];
  EXPECT_EQ(h.hostname, "a");
  EXPECT_EQ(h.ranks, (std::vector<int>{0, 1}));
  EXPECT_NEAR(h.window_s, 2.0, 1e-9);
  EXPECT_EQ(h.cpus, 4);
  // Busy from rank 0's start (the earliest) to rank 0's end (the latest).
  EXPECT_NEAR(*h.other_cpu_s, 4.0 - 3.0, 1e-9);
  EXPECT_NEAR(*h.other_cpu_fraction, 1.0 / (2.0 * 4), 1e-9);
  EXPECT_NEAR(*h.steal_fraction, 20.0 / 700.0, 1e-9);
  EXPECT_DOUBLE_EQ(*h.loadavg_start, 1.0);
  EXPECT_FALSE(h.freq_mhz);
}

TEST(HostLoadReport, OurRanksAloneLeaveNothingToOthers) {
  // Tick accounting can read a little less than getrusage: never below 0.
  const std::vector<RankStats> ranks = {
      rank(0, "a", reading(0, 0, 0, 0, 0.0), reading(kSecond, 100, 0, 400, 1.02))};
  const HostLoad h = summarize_host_load(ranks).at(0);
  EXPECT_DOUBLE_EQ(*h.other_cpu_s, 0.0);
  EXPECT_DOUBLE_EQ(*h.other_cpu_fraction, 0.0);
}

TEST(HostLoadReport, OneEntryPerHostInRankOrder) {
  const std::vector<RankStats> ranks = {
      rank(0, "b", reading(0, 0, 0, 0, 0), reading(kSecond, 400, 0, 400, 0)),
      rank(1, "a", reading(0, 0, 0, 0, 0), reading(kSecond, 0, 0, 400, 0)),
      rank(2, "b", reading(0, 0, 0, 0, 0), reading(kSecond, 400, 0, 400, 0)),
  };
  const std::vector<HostLoad> hosts = summarize_host_load(ranks);
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].hostname, "b");
  EXPECT_EQ(hosts[0].ranks, (std::vector<int>{0, 2}));
  EXPECT_DOUBLE_EQ(*hosts[0].other_cpu_fraction, 1.0);
  EXPECT_EQ(hosts[1].hostname, "a");
  EXPECT_DOUBLE_EQ(*hosts[1].other_cpu_fraction, 0.0);
  // The line shows the busiest host and says there are more.
  const std::string line = host_load_line(hosts);
  EXPECT_NE(line.find("2 hosts"), std::string::npos) << line;
  EXPECT_NE(line.find(": b, 4 CPUs"), std::string::npos) << line;
  EXPECT_NE(line.find("100.0 %"), std::string::npos) << line;
}

TEST(HostLoadReport, WhatCouldNotBeReadIsNull) {
  HostLoadReading start;
  HostLoadReading end;
  end.t_ns = kSecond;
  const std::vector<HostLoad> hosts = summarize_host_load({rank(0, "a", start, end)});
  ASSERT_EQ(hosts.size(), 1u);
  JsonWriter w;
  w.begin_object();
  write_host_load(w, hosts);
  w.end_object();
  const std::string json = w.str();
  for (const char* key : {"loadavg_start", "loadavg_end", "other_cpu_s", "other_cpu_fraction",
                          "steal_fraction", "cpus", "freq_mhz"})
    EXPECT_NE(json.find(std::string("\"") + key + "\": null"), std::string::npos) << key << json;
  EXPECT_NE(host_load_line(hosts).find("not readable"), std::string::npos);
}

TEST(HostLoadReport, ASimulatedRunHasNone) {
  RankStats r;  // no readings taken (`evbench sim`)
  r.host = "a";
  const std::vector<HostLoad> hosts = summarize_host_load({r});
  EXPECT_TRUE(hosts.empty());
  EXPECT_EQ(host_load_line(hosts), "");
  JsonWriter w;
  w.begin_object();
  write_host_load(w, hosts);
  w.end_object();
  EXPECT_EQ(w.str().find("host_load"), std::string::npos);
}

TEST(HostLoadReport, ReadingsTravelToRankZero) {
  RankStats a = rank(3, "a", reading(5 * kSecond, 100, 1, 800, 0.25),
                     reading(6 * kSecond + 7, 300, 2, 1200, 0.75));
  a.host_load.end.freq_mhz = 2400;
  const RankStats b = RankStats::deserialize(a.serialize());
  ASSERT_TRUE(b.host_load.measured);
  EXPECT_EQ(b.host_load.start.t_ns, a.host_load.start.t_ns);
  EXPECT_EQ(b.host_load.end.t_ns, a.host_load.end.t_ns);
  EXPECT_EQ(b.host_load.end.ticks->busy, 300u);
  EXPECT_DOUBLE_EQ(b.host_load.end.own_cpu_s, 0.75);
  EXPECT_DOUBLE_EQ(*b.host_load.end.freq_mhz, 2400.0);
  EXPECT_FALSE(RankStats::deserialize(RankStats{}.serialize()).host_load.measured);
}

}  // namespace
}  // namespace evb
