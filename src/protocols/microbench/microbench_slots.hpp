#pragma once
// ReceiveSlots: which slot of a receiver's arena the next message of a
// source goes into, and how many messages are in flight into each slot.
//
// Each source has `slots` slots (receive_slots) and `in_flight` messages
// outstanding (parallel): posted receives (data_path send) or credits
// naming a slot (write). Tickets circulate in a queue, oldest first: a slot
// taken for a message goes back to the tail once that message is done with
// it, and the next message takes the head. With as many slots as messages
// in flight that is the slot just freed, as before the key existed; with
// more, messages rotate through every slot (a larger arena: cache to
// memory); with fewer, a slot holds several messages in flight at once, as
// the libraries' tools receive into one buffer. land() says whether a
// message was alone in its slot, i.e. whether what the slot holds can only
// be that message (the header check is made only then).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace evb::micro {

class ReceiveSlots {
 public:
  void reset(size_t sources, uint32_t slots, uint32_t in_flight) {
    slots_ = slots == 0 ? 1 : slots;
    free_.assign(sources, {});
    in_flight_.assign(sources * slots_, 0);
    const uint32_t tickets = in_flight > slots_ ? in_flight : slots_;
    for (auto& q : free_)
      for (uint32_t k = 0; k < tickets; ++k) q.push_back(k % slots_);
  }
  uint32_t slots() const { return slots_; }
  // A slot for the next message of source `s`, counted in flight.
  uint32_t take(size_t s) {
    const uint32_t slot = free_.at(s).front();
    free_[s].pop_front();
    ++in_flight_[s * slots_ + slot];
    return slot;
  }
  // A message of source `s` landed in `slot`: no longer in flight. True when
  // it was the only message in flight into that slot.
  bool land(size_t s, uint32_t slot) {
    uint32_t& n = in_flight_.at(s * slots_ + slot);
    const bool alone = n == 1;
    if (n > 0) --n;
    return alone;
  }
  // `slot` may take another message of source `s`.
  void give_back(size_t s, uint32_t slot) { free_.at(s).push_back(slot); }

 private:
  uint32_t slots_ = 1;
  std::vector<std::deque<uint32_t>> free_;  // per source, slots that may take a message
  std::vector<uint32_t> in_flight_;         // per source x slot
};

}  // namespace evb::micro
