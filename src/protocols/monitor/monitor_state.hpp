#pragma once
// MonitorState: the one place the engine thread and the HTTP server thread
// meet. The engine publishes a snapshot once per report interval and takes
// queued control requests at its next tick; the server formats what was
// published and queues checked requests. One mutex, held for a copy or a
// format, never across I/O; the engine's per-tick check is one relaxed
// atomic load (has_requests), so a run without requests pays nothing more.
// Memory stays bounded as the node count grows: only the latest snapshot
// keeps the RU->BU matrix, the RUs, faults and control records; the older
// ones keep what the rate timeline reads (the EVM's counters and each BU).
#include <atomic>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "protocols/monitor/control.hpp"
#include "protocols/monitor/snapshot.hpp"

namespace evb {

class MonitorState {
 public:
  // `config_yaml`: the resolved configuration (shown by the page);
  // `history`: how many snapshots the rate timeline keeps.
  MonitorState(std::string config_yaml, ControlLimits limits, size_t history = 900);

  // Engine thread.
  void publish(MonitorSnapshot snapshot);
  bool has_requests() const { return pending_.load(std::memory_order_relaxed); }
  std::vector<ControlRequest> take_requests();

  // Server thread.
  std::string metrics_text() const;  // Prometheus text exposition of the latest
  std::string state_json() const;    // the page's data (docs/MONITORING.md)
  MonitorSnapshot latest() const;    // a copy of the last published (empty: none yet)
  void submit(ControlRequest request);
  const ControlLimits& limits() const { return limits_; }

  // Bytes the kept snapshots hold in their vectors (capacity), for tests and
  // docs: one matrix and `history` thinned snapshots at most.
  size_t held_bytes() const;

 private:
  mutable std::mutex mutex_;
  std::string config_yaml_;
  ControlLimits limits_;
  size_t history_max_;
  std::deque<MonitorSnapshot> history_;  // oldest first; back() is the latest
  std::vector<ControlRequest> queue_;
  std::atomic<bool> pending_{false};
};

}  // namespace evb
