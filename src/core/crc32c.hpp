#pragma once
// CRC32C (Castagnoli), hardware-accelerated with SSE4.2 where available.
// crc32c_extend(crc32c(a), b) == crc32c(a || b), so RUs can precompute
// prefix checksums of their ring slots and finish any size cheaply.
#include <cstddef>
#include <cstdint>

namespace evb {

uint32_t crc32c_extend(uint32_t crc, const void* data, size_t size);
inline uint32_t crc32c(const void* data, size_t size) {
  return crc32c_extend(0, data, size);
}
// True when the SSE4.2 instruction is used.
bool crc32c_hardware();

}  // namespace evb
