#include "units/ring_ownership.hpp"

#include <algorithm>

namespace evb {

RingOwnership::RingOwnership(size_t slots) : owner_(std::max<size_t>(1, slots), kFree) {}

RingOwnership::Entry RingOwnership::enter(uint64_t event) {
  const size_t s = event % owner_.size();
  if (event < released_) return {Verdict::stale, s, owner_[s]};
  frontier_ = std::max(frontier_, event + 1);
  const uint64_t o = owner_[s];
  if (o == event) return {Verdict::held, s, o};
  owner_[s] = event;
  if (o == kFree) {
    max_held_ = std::max(max_held_, ++held_);
    return {Verdict::held, s, o};
  }
  // Every owner is at or above the last release (release() frees the rest).
  return {Verdict::overrun, s, o};
}

const char* RingOwnership::release_refusal(uint64_t watermark) const {
  if (watermark <= released_) return "not past the last one";
  if (watermark > frontier_) return "beyond the events this RU was asked for";
  return nullptr;
}

void RingOwnership::release(uint64_t watermark) {
  const size_t n = owner_.size();
  if (watermark - released_ >= n) {
    for (uint64_t& o : owner_)
      if (o != kFree && o < watermark) {
        o = kFree;
        --held_;
      }
  } else {
    for (uint64_t e = released_; e < watermark; ++e)
      if (owner_[e % n] == e) {
        owner_[e % n] = kFree;
        --held_;
      }
  }
  released_ = watermark;
}

}  // namespace evb
