#pragma once
// RingOwnership: the readout buffer model of an RU under on_failure exclude.
// Each ring slot belongs to the event that entered it (an event enters its
// home slot, event % slots, when the RU is first asked for its fragment)
// until the EVM acknowledges that event built (a release: every event below
// the watermark is built). Until then a reassigned event is served again
// from the same slot; an event whose home slot another unacknowledged event
// still holds is a ring overrun, and an event asked for after its release is
// stale: its data is no longer held. Both are the caller's to count; with
// the EVM's back-pressure neither happens in a sound run. No I/O.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace evb {

class RingOwnership {
 public:
  static constexpr uint64_t kFree = UINT64_MAX;
  enum class Verdict {
    held,     // the slot holds this event (it entered now, or earlier)
    overrun,  // another unacknowledged event held the slot; it holds this one now
    stale,    // the event was acknowledged built already; nothing changes
  };
  struct Entry {
    Verdict verdict;
    size_t slot;
    uint64_t other;  // overrun: the event that held the slot
  };

  explicit RingOwnership(size_t slots);

  // Event `event` asks for its fragment.
  Entry enter(uint64_t event);
  // Why a release to `watermark` cannot be taken (nullptr: it can): it must
  // move past the last one and not beyond the newest event that entered.
  const char* release_refusal(uint64_t watermark) const;
  // Frees the slots of every event below `watermark` (release_refusal() null).
  void release(uint64_t watermark);

  size_t slots() const { return owner_.size(); }
  uint64_t owner(size_t slot) const { return owner_.at(slot); }
  uint64_t released() const { return released_; }
  // One past the newest event that entered (0: none yet).
  uint64_t frontier() const { return frontier_; }
  size_t held() const { return held_; }
  size_t max_held() const { return max_held_; }

 private:
  std::vector<uint64_t> owner_;  // per slot: its event, or kFree
  uint64_t released_ = 0;
  uint64_t frontier_ = 0;
  size_t held_ = 0;
  size_t max_held_ = 0;
};

}  // namespace evb
