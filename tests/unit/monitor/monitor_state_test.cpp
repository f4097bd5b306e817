// MonitorState keeps the rate timeline without keeping a matrix per
// snapshot: what it holds is one full snapshot and thinned older ones, and
// what it serves is byte for byte what the full history would give.
#include "protocols/monitor/monitor_state.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <string>

#include "protocols/monitor/exposition.hpp"
#include "protocols/monitor/state_json.hpp"
#include "synthetic_snapshot.hpp"

namespace evb {
namespace {

using test_support::synthetic_snapshot;

constexpr int kNodes = 48;
constexpr size_t kHistory = 40;

// One snapshot's vectors without the matrix, RUs and records: what a
// thinned snapshot may hold at most.
size_t thinned_bytes(const MonitorSnapshot& s) {
  return sizeof s + s.eb.bus.capacity() * sizeof(MonitorBu);
}
size_t matrix_bytes(const MonitorSnapshot& s) {
  return s.eb.matrix.capacity() * sizeof(uint64_t) + s.eb.matrix_rate.capacity() * sizeof(double) +
         s.eb.rus.capacity() * sizeof(MonitorRu) + s.eb.faults.capacity() * sizeof(MonitorFault) +
         s.eb.control.capacity() * sizeof(ControlRecord) +
         s.eb.params.ru_rate_factors.capacity() * sizeof(double);
}

TEST(MonitorState, KeepsOneMatrixWhateverTheHistory) {
  MonitorState state("nodes: 48\n", ControlLimits{}, kHistory);
  const MonitorSnapshot probe = synthetic_snapshot(kNodes, 1);
  // Twice the history: the oldest have been dropped, every kept one but the
  // latest thinned.
  for (int k = 1; k <= static_cast<int>(2 * kHistory); ++k)
    state.publish(synthetic_snapshot(kNodes, k));
  const size_t bound = kHistory * thinned_bytes(probe) + matrix_bytes(probe);
  EXPECT_LE(state.held_bytes(), bound);
  // Without thinning it would hold a matrix per snapshot, far above.
  EXPECT_GT(kHistory * (thinned_bytes(probe) + matrix_bytes(probe)), 2 * bound);
}

TEST(MonitorState, ServesWhatTheFullHistoryGives) {
  MonitorState state("nodes: 48\n", ControlLimits{}, kHistory);
  std::deque<MonitorSnapshot> full;
  for (int k = 1; k <= static_cast<int>(kHistory + 5); ++k) {
    state.publish(synthetic_snapshot(kNodes, k));
    full.push_back(synthetic_snapshot(kNodes, k));
    if (full.size() > kHistory) full.pop_front();
  }
  EXPECT_EQ(state.state_json(), evb::state_json(full, "nodes: 48\n"));
  EXPECT_EQ(state.metrics_text(), prometheus_text(full.back(), &full[full.size() - 2]));
}

}  // namespace
}  // namespace evb
