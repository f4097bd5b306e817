#include "units/event_manager.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace evb {

EventManager::EventManager(int nbu, uint64_t events_limit)
    : events_limit_(events_limit), outstanding_(nbu, 0), assigned_per_bu_(nbu, 0) {}

std::optional<uint64_t> EventManager::assign(int bu) {
  if (stopping_) return std::nullopt;
  if (events_limit_ && next_event_ >= events_limit_) {
    stopping_ = true;
    return std::nullopt;
  }
  max_outstanding_ = std::max(max_outstanding_, ++outstanding_.at(bu));
  ++assigned_per_bu_[bu];
  ++outstanding_total_;
  return next_event_++;
}

void EventManager::completed(int bu) {
  if (outstanding_.at(bu) == 0)
    throw std::logic_error("EVM: BU " + std::to_string(bu) + " completed more than assigned");
  --outstanding_[bu];
  --outstanding_total_;
  ++completed_total_;
}

}  // namespace evb
