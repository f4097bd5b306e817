// The monitor's cost in the EVM's rank at a large node count, without a
// network: the hub (src/protocols/monitor/monitor_hub.*) alone is fed
// every stats command a run of N nodes sends it per report_interval (per
// BU: its totals, its latency quantiles and its row of the traffic matrix,
// three RUs, or over 64 nodes three RU groups, a command; per RU: its
// totals), as MonitorReporter builds them,
// for a number of intervals, each followed by the hub's publication of a
// snapshot. Prints the commands per second such a run needs beside those
// the hub takes on one core (their ratio), the CPU time per command and per
// publication, the share of the EVM's core that makes at that interval,
// and what formatting /api/state and /metrics once costs (the HTTP thread).
// Not a test: the CPU figures depend on the machine and its load.
//
//   build/bin/evbench_monitor_hub_rate [--nodes N] [--interval S] [--intervals K]
//   (defaults: 512 nodes, report_interval 1 s, 10 intervals)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "../tests/unit/support/recording_driver.hpp"
#include "core/clock.hpp"
#include "core/topology.hpp"
#include "protocols/event_building/event_building_live.hpp"
#include "protocols/monitor/monitor_hub.hpp"
#include "protocols/monitor/traffic.hpp"
#include "protocols/pull/pull.hpp"

namespace {

struct Options {
  int nodes = 512;
  double interval_s = 1.0;
  int intervals = 10;
};

// CPU seconds this thread used so far.
double cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// The commands of interval `k` (from start_ns to end_ns of every sender's
// clock): counters grow by the same amount each interval.
std::vector<std::pair<evb::PeerId, evb::Command>> interval_commands(const evb::Topology& topo,
                                                                    int k, int64_t start_ns,
                                                                    int64_t end_ns) {
  using evb::Command;
  using evb::CommandType;
  using evb::MonitorStat;
  const auto n = static_cast<uint32_t>(topo.nodes);
  const auto kk = static_cast<uint64_t>(k + 1);
  const auto rows = static_cast<uint32_t>(evb::matrix_rows(topo.nodes));  // RUs or RU groups
  std::vector<std::pair<evb::PeerId, Command>> out;
  auto put = [&](evb::PeerId from, Command c) {
    c.type = CommandType::stats;
    c.pad[0] = static_cast<uint64_t>(start_ns);
    c.pad[1] = static_cast<uint64_t>(end_ns);
    out.emplace_back(from, c);
  };
  for (uint32_t b = 0; b < n; ++b) {
    const evb::PeerId from = topo.bu_rank[b];
    put(from, Command{.event_id = 1000 * kk * n,
                      .slot = static_cast<uint32_t>(MonitorStat::bu),
                      .bu = b,
                      .bytes = 4000000 * kk * n});
    put(from, Command{.event_id = 1000000,
                      .slot = static_cast<uint32_t>(MonitorStat::latency),
                      .bu = b,
                      .bytes = 2000000,
                      .value = 3000000});
    for (uint32_t r = 0; r < rows; r += 3) {
      const uint32_t count = std::min<uint32_t>(3, rows - r);
      put(from, Command{.event_id = 4000000 * kk,
                        .slot = static_cast<uint32_t>(MonitorStat::matrix),
                        .bu = b,
                        .ru = r,
                        .count = count,
                        .bytes = 4000000 * kk,
                        .value = 4000000 * kk});
    }
  }
  for (uint32_t r = 0; r < n; ++r) {
    put(topo.ru_rank[r], Command{.event_id = 1000 * kk * n,
                                 .slot = static_cast<uint32_t>(MonitorStat::ru),
                                 .ru = r,
                                 .bytes = 4000000 * kk * n});
  }
  return out;
}

int run(const Options& o) {
  evb::Config c;
  c.nodes = o.nodes;
  c.parallel = 1;
  c.credits = 2;
  c.fragment.size = 4096;
  c.fragment.max_size = 16384;
  c.report_interval_s = o.interval_s;
  c.monitor.port = 1;  // not served: the hub only
  const evb::Topology topo = evb::make_topology(c);
  std::vector<std::string> names;
  for (size_t r = 0; r < topo.ranks.size(); ++r) names.push_back("rank " + std::to_string(r));
  evb::test_support::RecordingDriver driver;
  evb::Engine engine{driver, topo.evm_rank, c, evb::PollMode::busy, names};
  evb::EventBuildingStats stats;
  evb::pull::PullEvmAgent evm{engine, topo, stats, false};
  evb::MonitorState state("nodes: " + std::to_string(o.nodes) + "\n", evb::ControlLimits{});
  evb::MonitorHub hub(engine, topo,
                      std::make_unique<evb::EventBuildingHubView>(engine, topo, evm, stats), state,
                      {"pull", "bench", "send"}, true);
  hub.start(0);
  const int64_t interval_ns = evb::s_to_ns(o.interval_s);
  double command_cpu = 0, publish_cpu = 0, state_cpu = 0, metrics_cpu = 0;
  size_t commands = 0, state_bytes = 0, metrics_bytes = 0;
  for (int k = 0; k < o.intervals; ++k) {
    const auto batch = interval_commands(topo, k, k * interval_ns, (k + 1) * interval_ns);
    const double t0 = cpu_s();
    for (const auto& [from, cmd] : batch) hub.on_command(from, cmd);
    const double t1 = cpu_s();
    hub.on_tick((k + 1) * interval_ns);  // due: publishes a snapshot
    const double t2 = cpu_s();
    const std::string body = state.state_json();
    const double t3 = cpu_s();
    const std::string text = state.metrics_text();
    const double t4 = cpu_s();
    if (k == 0) continue;  // the first interval sets the baselines: not timed
    commands += batch.size();
    command_cpu += t1 - t0;
    publish_cpu += t2 - t1;
    state_cpu += t3 - t2;
    metrics_cpu += t4 - t3;
    state_bytes = body.size();
    metrics_bytes = text.size();
  }
  const int timed = o.intervals - 1;
  const double per_interval = static_cast<double>(commands) / timed;
  const double needed = per_interval / o.interval_s;
  const double taken = static_cast<double>(commands) / command_cpu;
  const double publish_ms = publish_cpu / timed * 1e3;
  const double share = (command_cpu + publish_cpu) / timed / o.interval_s;
  std::printf("nodes %d, report_interval %g s, %d intervals timed\n", o.nodes, o.interval_s, timed);
  std::printf("stats commands per interval      %12.0f\n", per_interval);
  std::printf("commands/s the run sends         %12.0f\n", needed);
  std::printf("commands/s the hub takes (1 core)%12.0f   ratio %.1f\n", taken, taken / needed);
  std::printf("CPU per command                  %12.3f us\n", command_cpu / commands * 1e6);
  std::printf("CPU per publication              %12.3f ms\n", publish_ms);
  std::printf("EVM core share at this interval  %12.2f %%\n", share * 100);
  std::printf("/api/state: %zu bytes, %.3f ms CPU; /metrics: %zu bytes, %.3f ms CPU\n", state_bytes,
              state_cpu / timed * 1e3, metrics_bytes, metrics_cpu / timed * 1e3);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--nodes" && has_value) {
      o.nodes = std::atoi(argv[++i]);
    } else if (a == "--interval" && has_value) {
      o.interval_s = std::atof(argv[++i]);
    } else if (a == "--intervals" && has_value) {
      o.intervals = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: evbench_monitor_hub_rate [--nodes N] [--interval S] [--intervals K]\n");
      return 2;
    }
  }
  if (o.nodes < 1 || !(o.interval_s > 0) || o.intervals < 2) {
    std::fprintf(stderr, "evbench_monitor_hub_rate: nodes >= 1, interval > 0, intervals >= 2\n");
    return 2;
  }
  return run(o);
}
