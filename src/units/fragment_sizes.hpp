#pragma once
// Fragment payload sizes: the configured distribution, per-RU factors, clamp
// (the largest payload: core/ring_geometry.hpp).
#include <cstdint>

#include "core/config.hpp"
#include "core/ring_geometry.hpp"  // max_payload, meta_bytes

namespace evb {

// Payload size of RU `ru`'s fragment of `event` (deterministic in seed).
uint64_t fragment_payload(const Config& c, int ru, uint64_t event);

}  // namespace evb
