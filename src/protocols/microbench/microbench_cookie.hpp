#pragma once
// The MicroAgent's cookie values and arena rounding, shared by its files
// (microbench_agent.cpp: receiving and dispatch; microbench_send.cpp: sending).
#include <cstddef>
#include <cstdint>

namespace evb::micro {

// Cookie values: kind in bits 48..51; receives carry source (24..47) and slot.
enum Kind : uint64_t {
  kDataSend = 1,
  kMetaSend = 2,
  kDataRecv = 3,
  kMetaRecv = 4,
  kDataSendInline = 5,  // header written into the pool slot: one contiguous segment
};
inline uint64_t cookie_of(Kind k, uint64_t source, uint64_t slot) {
  return (static_cast<uint64_t>(k) << 48) | (source << 24) | slot;
}
inline Kind kind_of(uint64_t v) {
  return static_cast<Kind>((v >> 48) & 0xF);
}
inline size_t source_of(uint64_t v) {
  return (v >> 24) & 0xFFFFFF;
}
inline uint32_t slot_of(uint64_t v) {
  return static_cast<uint32_t>(v & 0xFFFFFF);
}

inline uint64_t round64(uint64_t n) {
  return (n + 63) & ~uint64_t{63};
}

}  // namespace evb::micro
