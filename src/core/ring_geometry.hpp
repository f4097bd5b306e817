#pragma once
// How large an RU's fragments can get and how many fit its ring, written
// once: the ReadoutUnit sizes its slots from it, the EVM's back-pressure
// under on_failure exclude counts the same slots, and the config checks
// derive or check `ru_buffer` against it.
#include <cstddef>
#include <cstdint>

#include "core/config.hpp"

namespace evb {

// Largest payload RU `ru` may produce (bytes), after factors and clamping.
uint64_t max_payload(const Config& c, int ru);
// Largest payload any RU may produce.
uint64_t max_payload(const Config& c);
// Bytes of metadata segments per fragment.
inline uint64_t meta_bytes(const Config& c) {
  return c.fragment.meta_size * c.fragment.meta_segments;
}
// Events per fragment (fragment.events, the packing factor p).
inline uint64_t mep_events(const Config& c) {
  return c.fragment.events;
}
// Largest payload of one fragment of RU `ru`: p events of the largest payload.
inline uint64_t max_mep_payload(const Config& c, int ru) {
  return mep_events(c) * max_payload(c, ru);
}
// The MEPs an `events:` run assigns: events / p (`events` is a multiple of p).
inline uint64_t meps_to_build(const Config& c) {
  return c.events / mep_events(c);
}
// Bytes before the metadata: the 64 B header, and for p > 1 its table of p
// events (core/messages.hpp).
uint64_t head_bytes(const Config& c);
// Slots of RU `ru`'s ring: `ru_buffer` counts fragment bytes (metadata and
// the largest payload of p events); the head room per slot comes on top.
// At least 1.
size_t ring_slots(const Config& c, int ru);
// The smallest ring of any RU of the run.
size_t min_ring_slots(const Config& c);
// The `ru_buffer` that gives every RU at least `fragments` slots.
uint64_t ring_bytes(const Config& c, uint64_t fragments);
// on_failure exclude: RUs keep each fragment until its event is built, and
// nodes x credits events can be in flight; a ring of fewer slots throttles
// the run. The least `ru_buffer` for that, and the default when the user
// sets none (twice that: the EVM releases slots in batches of a quarter
// ring, so the batching alone never holds assignment back; an event that
// lags the others by more than the ring still does, as in a real RU).
uint64_t exclude_min_ru_buffer(const Config& c);
uint64_t exclude_default_ru_buffer(const Config& c);

}  // namespace evb
