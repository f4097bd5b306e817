// The monitor's views stay bounded as the node count grows: the RU->BU
// matrix cell by cell up to kMatrixFullNodes nodes and summed over at most
// kMatrixGroups groups a side above; /metrics' series count and
// /api/state's size at 512 nodes within the bounds docs/MONITORING.md
// states ("Large runs"), with a full history kept.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "protocols/monitor/exposition.hpp"
#include "protocols/monitor/monitor_state.hpp"
#include "protocols/monitor/traffic.hpp"
#include "synthetic_snapshot.hpp"

namespace evb {
namespace {

using test_support::synthetic_snapshot;

// The bounds docs/MONITORING.md states.
constexpr size_t kSeriesPerNode = 20;       // 13 per BU, 7 per RU
constexpr size_t kOtherSeriesMax = 40;      // the run, the knobs, faults, control
constexpr size_t kStateBytesMax = 1 << 20;  // /api/state at 512 nodes

// Series (sample lines) of a family, and of the whole exposition.
size_t series(const std::string& text, const std::string& family = "") {
  std::istringstream in(text);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (family.empty() || line.rfind(family + "{", 0) == 0) ++n;
  }
  return n;
}

// Sum of a family's sample values (integers).
uint64_t family_sum(const std::string& text, const std::string& family) {
  std::istringstream in(text);
  uint64_t sum = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(family + "{", 0) != 0) continue;
    sum += std::stoull(line.substr(line.rfind(' ') + 1));
  }
  return sum;
}

// A MonitorState that published `reports` snapshots of `nodes` nodes.
void publish_run(MonitorState& state, int nodes, int reports) {
  const MonitorSnapshot base = synthetic_snapshot(nodes, 1);
  for (int k = 1; k <= reports; ++k) {
    MonitorSnapshot s = base;
    s.t_s = 0.5 * k;
    s.eb.events_built = base.eb.events_built * static_cast<uint64_t>(k);
    s.eb.bytes_built = base.eb.bytes_built * static_cast<uint64_t>(k);
    state.publish(std::move(s));
  }
}

TEST(LargeRun, GroupsHoldConsecutiveUnits) {
  EXPECT_EQ(matrix_group_size(kMatrixFullNodes), 1u);
  EXPECT_EQ(matrix_groups(kMatrixFullNodes), static_cast<size_t>(kMatrixFullNodes));
  for (const int n : {kMatrixFullNodes + 1, 100, 512, 1000}) {
    EXPECT_LE(matrix_groups(n), kMatrixGroups) << n;
    EXPECT_GE(matrix_groups(n) * matrix_group_size(n), static_cast<size_t>(n)) << n;
  }
  EXPECT_EQ(matrix_group_label(512, 1), "32-63");
  EXPECT_EQ(matrix_group_label(100, matrix_groups(100) - 1), "98-99");  // groups of 7
  const MonitorSnapshot s = synthetic_snapshot(100, 3);
  const std::vector<uint64_t> g = grouped_matrix(s.eb.matrix, 100);
  ASSERT_EQ(g.size(), matrix_groups(100) * matrix_groups(100));
  EXPECT_EQ(std::accumulate(g.begin(), g.end(), uint64_t{0}),
            std::accumulate(s.eb.matrix.begin(), s.eb.matrix.end(), uint64_t{0}));
  // RU 8 (group 1) to BU 99 (the last group).
  uint64_t cell = 0;
  for (size_t r = 7; r < 14; ++r)
    for (size_t b = 98; b < 100; ++b) cell += s.eb.matrix[r * 100 + b];
  EXPECT_EQ(g[1 * matrix_groups(100) + matrix_groups(100) - 1], cell);
}

// Over the bound each BU sends its row per RU group; the views give the
// same groups as from the full matrix.
TEST(LargeRun, RowsPerRuGroupGiveTheSameGroups) {
  for (const int n : {kMatrixFullNodes, kMatrixFullNodes + 1, 100, 512}) {
    const MonitorSnapshot s = synthetic_snapshot(n, 2);
    const auto nodes = static_cast<size_t>(n);
    std::vector<uint64_t> by_rows(matrix_rows(n) * nodes), row;
    for (size_t b = 0; b < nodes; ++b) {
      std::vector<uint64_t> per_ru(nodes);
      for (size_t r = 0; r < nodes; ++r) per_ru[r] = s.eb.matrix[r * nodes + b];
      matrix_row(per_ru, n, row);
      ASSERT_EQ(row.size(), matrix_rows(n));
      for (size_t g = 0; g < row.size(); ++g) by_rows[g * nodes + b] = row[g];
    }
    EXPECT_EQ(matrix_rows(n), n > kMatrixFullNodes ? matrix_groups(n) : nodes) << n;
    EXPECT_EQ(grouped_matrix(by_rows, n), grouped_matrix(s.eb.matrix, n)) << n;
    if (n <= kMatrixFullNodes) {
      EXPECT_EQ(by_rows, s.eb.matrix);
    }
  }
}

TEST(LargeRun, MetricsGiveTheFullMatrixUpToTheBound) {
  const MonitorSnapshot s = synthetic_snapshot(kMatrixFullNodes, 2);
  const std::string text = prometheus_text(s, nullptr);
  EXPECT_EQ(series(text, "evbench_traffic_bytes_total"),
            static_cast<size_t>(kMatrixFullNodes * kMatrixFullNodes));
  EXPECT_EQ(series(text, "evbench_traffic_group_bytes_total"), 0u);
}

TEST(LargeRun, MetricsAt512NodesAreBounded) {
  constexpr int kNodes = 512;
  const MonitorSnapshot prev = synthetic_snapshot(kNodes, 1);
  const MonitorSnapshot s = synthetic_snapshot(kNodes, 2);
  const std::string text = prometheus_text(s, &prev);
  EXPECT_EQ(series(text, "evbench_traffic_bytes_total"), 0u);
  EXPECT_EQ(series(text, "evbench_traffic_group_bytes_total"), kMatrixGroups * kMatrixGroups);
  EXPECT_EQ(family_sum(text, "evbench_traffic_group_bytes_total"),
            std::accumulate(s.eb.matrix.begin(), s.eb.matrix.end(), uint64_t{0}));
  const size_t total = series(text);
  EXPECT_LE(total, kSeriesPerNode * kNodes + kMatrixGroups * kMatrixGroups + kOtherSeriesMax);
  std::printf("/metrics at %d nodes: %zu series, %zu bytes\n", kNodes, total, text.size());
}

TEST(LargeRun, StateAt512NodesIsBounded) {
  constexpr int kNodes = 512;
  MonitorState state("nodes: 512\n", ControlLimits{}, 900);
  publish_run(state, kNodes, 900);
  const std::string body = state.state_json();
  std::printf("/api/state at %d nodes, 900 snapshots kept: %zu bytes\n", kNodes, body.size());
  EXPECT_LE(body.size(), kStateBytesMax);
  const YAML::Node j = YAML::Load(body);
  const YAML::Node m = j["matrix"];
  EXPECT_EQ(m["group_size"].as<size_t>(), matrix_group_size(kNodes));
  ASSERT_EQ(m["bytes"].size(), kMatrixGroups);
  EXPECT_EQ(m["gbps"][0].size(), kMatrixGroups);
  EXPECT_EQ(j["bus"].size(), static_cast<size_t>(kNodes));
  // The history spans the same snapshots with fewer points, the latest last.
  const YAML::Node h = j["history"];
  EXPECT_LE(h.size() * kNodes, kHistoryUnitCells);
  EXPECT_GT(h.size(), 1u);
  EXPECT_DOUBLE_EQ(h[h.size() - 1]["t_s"].as<double>(), 0.5 * 900);
  EXPECT_EQ(h[0]["bu_gbps"].size(), static_cast<size_t>(kNodes));
}

TEST(LargeRun, StateUpToTheBoundKeepsEveryPointAndCell) {
  MonitorState state("nodes: 64\n", ControlLimits{}, 900);
  publish_run(state, kMatrixFullNodes, 700);
  const YAML::Node j = YAML::Load(state.state_json());
  EXPECT_FALSE(j["matrix"]["group_size"].IsDefined());
  EXPECT_EQ(j["matrix"]["bytes"].size(), static_cast<size_t>(kMatrixFullNodes));
  EXPECT_EQ(j["history"].size(), 600u);
}

}  // namespace
}  // namespace evb
