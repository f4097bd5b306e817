#pragma once
// Fragment payload sizes: the configured distribution, per-RU factors, clamp.
#include <cstdint>

#include "core/config.hpp"

namespace evb {

// Largest payload any RU may produce (bytes), after factors and clamping.
uint64_t max_payload(const Config& c);
// Largest payload RU `ru` may produce.
uint64_t max_payload(const Config& c, int ru);
// Bytes of metadata segments per fragment.
inline uint64_t meta_bytes(const Config& c) {
  return c.fragment.meta_size * c.fragment.meta_segments;
}
// Payload size of RU `ru`'s fragment of `event` (deterministic in seed).
uint64_t fragment_payload(const Config& c, int ru, uint64_t event);

}  // namespace evb
