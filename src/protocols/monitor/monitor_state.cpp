#include "protocols/monitor/monitor_state.hpp"

#include <utility>
#include <vector>

#include "protocols/monitor/exposition.hpp"
#include "protocols/monitor/state_json.hpp"

namespace evb {

MonitorState::MonitorState(std::string config_yaml, ControlLimits limits, size_t history)
    : config_yaml_(std::move(config_yaml)),
      limits_(std::move(limits)),
      history_max_(history < 2 ? 2 : history) {}

namespace {

// What a snapshot no longer the latest keeps: the timeline (state_json's
// history, the rates of /metrics) reads only its time, the EVM's counters
// and its BUs. Moving an empty vector in frees the memory (clear() would not).
void thin(MonitorSnapshot& s) {
  s.eb.matrix = std::vector<uint64_t>{};
  s.eb.matrix_rate = std::vector<double>{};
  s.eb.rus = std::vector<MonitorRu>{};
  s.eb.faults = std::vector<MonitorFault>{};
  s.eb.control = std::vector<ControlRecord>{};
  s.eb.params.ru_rate_factors = std::vector<double>{};
}

template <typename T>
size_t vector_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

}  // namespace

void MonitorState::publish(MonitorSnapshot snapshot) {
  const std::lock_guard lock(mutex_);
  if (!history_.empty()) thin(history_.back());
  history_.push_back(std::move(snapshot));
  while (history_.size() > history_max_) history_.pop_front();
}

std::vector<ControlRequest> MonitorState::take_requests() {
  std::vector<ControlRequest> out;
  const std::lock_guard lock(mutex_);
  out.swap(queue_);
  pending_.store(false, std::memory_order_relaxed);
  return out;
}

std::string MonitorState::metrics_text() const {
  const std::lock_guard lock(mutex_);
  if (history_.empty()) return prometheus_text(MonitorSnapshot{}, nullptr);
  const MonitorSnapshot* previous = history_.size() > 1 ? &history_[history_.size() - 2] : nullptr;
  return prometheus_text(history_.back(), previous);
}

MonitorSnapshot MonitorState::latest() const {
  const std::lock_guard lock(mutex_);
  return history_.empty() ? MonitorSnapshot{} : history_.back();
}

std::string MonitorState::state_json() const {
  const std::lock_guard lock(mutex_);
  return evb::state_json(history_, config_yaml_);
}

size_t MonitorState::held_bytes() const {
  const std::lock_guard lock(mutex_);
  size_t total = 0;
  for (const MonitorSnapshot& s : history_) {
    total += sizeof s + vector_bytes(s.eb.bus) + vector_bytes(s.eb.rus) +
             vector_bytes(s.eb.matrix) + vector_bytes(s.eb.matrix_rate) +
             vector_bytes(s.eb.faults) + vector_bytes(s.eb.control) +
             vector_bytes(s.eb.params.ru_rate_factors);
  }
  return total;
}

void MonitorState::submit(ControlRequest request) {
  const std::lock_guard lock(mutex_);
  queue_.push_back(std::move(request));
  pending_.store(true, std::memory_order_relaxed);
}

}  // namespace evb
