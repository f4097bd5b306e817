#include "units/event_manager.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace evb {

EventManager::EventManager(int nbu, uint64_t events_limit)
    : events_limit_(events_limit),
      outstanding_(nbu, 0),
      assigned_per_bu_(nbu, 0),
      excluded_(nbu, 0),
      active_(nbu),
      masked_(nbu, 0),
      unmasked_(nbu) {}

std::optional<uint64_t> EventManager::assign(int bu) {
  if (excluded_.at(bu)) return std::nullopt;
  if (requeued_head_ < requeued_.size()) {
    // Already counted in outstanding_total_ when first assigned.
    max_outstanding_ = std::max(max_outstanding_, ++outstanding_[bu]);
    ++reassigned_;
    const uint64_t e = requeued_[requeued_head_++];
    if (requeued_head_ == requeued_.size()) {
      requeued_.clear();
      requeued_head_ = 0;
    }
    return e;
  }
  if (stopping_) return std::nullopt;
  if (events_limit_ && next_event_ >= events_limit_) {
    stopping_ = true;
    return std::nullopt;
  }
  if (ring_slots_ && next_event_ >= released_ + ring_slots_) {
    waiting_release_ = true;
    ++held_back_;
    return std::nullopt;
  }
  max_outstanding_ = std::max(max_outstanding_, ++outstanding_.at(bu));
  ++assigned_per_bu_[bu];
  ++outstanding_total_;
  return next_event_++;
}

void EventManager::completed(int bu, uint64_t event) {
  if (outstanding_.at(bu) == 0)
    throw std::logic_error("EVM: BU " + std::to_string(bu) + " completed more than assigned");
  --outstanding_[bu];
  --outstanding_total_;
  ++completed_total_;
  if (!ring_slots_) return;
  if (event < watermark_ || event >= next_event_ || finished_[event % ring_slots_])
    throw std::logic_error("EVM: event " + std::to_string(event) +
                           " finished twice or never assigned");
  finished_[event % ring_slots_] = 1;
  while (watermark_ < next_event_ && finished_[watermark_ % ring_slots_])
    finished_[watermark_++ % ring_slots_] = 0;
}

void EventManager::hold_fragments(size_t ring_slots) {
  if (next_event_) throw std::logic_error("EVM: hold_fragments after assignment began");
  ring_slots_ = std::max<size_t>(1, ring_slots);
  finished_.assign(ring_slots_, 0);
}

std::optional<uint64_t> EventManager::take_release(bool final) {
  if (!ring_slots_ || watermark_ == released_) return std::nullopt;
  const uint64_t batch = std::max<uint64_t>(1, ring_slots_ / 4);
  if (!final && !waiting_release_ && watermark_ - released_ < batch) return std::nullopt;
  released_ = watermark_;
  waiting_release_ = false;
  return released_;
}

}  // namespace evb

namespace evb {

size_t EventManager::exclude(int bu, const std::vector<uint64_t>& events) {
  if (excluded_.at(bu)) throw std::logic_error("EVM: BU " + std::to_string(bu) + " excluded twice");
  if (events.size() != outstanding_[bu])
    throw std::logic_error("EVM: BU " + std::to_string(bu) + " holds " +
                           std::to_string(outstanding_[bu]) + " events, " +
                           std::to_string(events.size()) + " given back");
  excluded_[bu] = 1;
  --active_;
  outstanding_[bu] = 0;
  requeued_.insert(requeued_.end(), events.begin(), events.end());
  return events.size();
}

}  // namespace evb

namespace evb {

int EventManager::mask(int ru) {
  if (masked_.at(ru)) throw std::logic_error("EVM: RU " + std::to_string(ru) + " masked twice");
  masked_[ru] = 1;
  return --unmasked_;
}

}  // namespace evb
