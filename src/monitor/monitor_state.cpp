#include "monitor/monitor_state.hpp"

#include <utility>

#include "monitor/exposition.hpp"
#include "monitor/state_json.hpp"

namespace evb {

MonitorState::MonitorState(std::string config_yaml, ControlLimits limits, size_t history)
    : config_yaml_(std::move(config_yaml)),
      limits_(std::move(limits)),
      history_max_(history < 2 ? 2 : history) {}

void MonitorState::publish(MonitorSnapshot snapshot) {
  const std::lock_guard lock(mutex_);
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

std::string MonitorState::state_json() const {
  const std::lock_guard lock(mutex_);
  return evb::state_json(history_, config_yaml_);
}

void MonitorState::submit(ControlRequest request) {
  const std::lock_guard lock(mutex_);
  queue_.push_back(std::move(request));
  pending_.store(true, std::memory_order_relaxed);
}

}  // namespace evb
