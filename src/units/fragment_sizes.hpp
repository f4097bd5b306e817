#pragma once
// Fragment payload sizes: the configured distribution, per-RU factors, clamp
// (the largest payload: core/ring_geometry.hpp).
#include <cstdint>

#include "core/config.hpp"
#include "core/ring_geometry.hpp"  // max_payload, meta_bytes

namespace evb {

// Payload size of RU `ru`'s fragment of `event` (deterministic in seed).
uint64_t fragment_payload(const Config& c, int ru, uint64_t event);
// The same with `factor` in place of RU `ru`'s ru_rate_factors entry (run-time
// control); still clamped to the largest payload the config allocates.
uint64_t fragment_payload(const Config& c, int ru, uint64_t event, double factor);
// RU `ru`'s ru_rate_factors entry (1 when the list is empty).
double rate_factor(const Config& c, int ru);

}  // namespace evb
