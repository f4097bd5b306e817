#pragma once
// How evbench (peer, tag) pairs map onto the 64-bit tags of libraries that
// match on 64 bits (libfabric, UCX).
//
//   bit 63      internal: 1 for the driver's own control messages
//   bits 32-62  the SENDER's rank
//   bits 0-31   the evbench Tag (or kControlTag for control messages)
//
// A receive from one peer matches the whole tag; an any-peer receive ignores
// the rank bits (kRankMask) and learns the source from the completion's tag.
// Neither needs the library to match on the source (libfabric's
// FI_DIRECTED_RECV; UCX has no source matching at all).
#include <cstdint>

#include "drivers/api/driver.hpp"

namespace evb {

constexpr uint64_t kInternalBit = 1ull << 63;
constexpr uint64_t kRankMask = 0x7FFFFFFFull << 32;
constexpr int kMaxRanks = 0x7FFFFFFF;          // ranks must fit in 31 bits
constexpr uint32_t kControlTag = 0x4556424Cu;  // "EVBL"

constexpr uint64_t user_tag(PeerId sender, Tag tag) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(sender)) << 32) | tag;
}
constexpr uint64_t control_tag(PeerId sender) {
  return kInternalBit | user_tag(sender, kControlTag);
}
constexpr uint64_t ignore_bits(PeerId from) {
  return from == kAnyPeer ? kRankMask : 0;
}
constexpr PeerId tag_sender(uint64_t wire_tag) {
  return static_cast<PeerId>((wire_tag & kRankMask) >> 32);
}
constexpr Tag tag_user(uint64_t wire_tag) {
  return static_cast<Tag>(wire_tag & 0xFFFFFFFFull);
}
constexpr bool tag_internal(uint64_t wire_tag) {
  return (wire_tag & kInternalBit) != 0;
}

static_assert(tag_sender(user_tag(12345, 7)) == 12345);
static_assert(tag_user(user_tag(12345, 0xFFFFFFFFu)) == 0xFFFFFFFFu);
static_assert(!tag_internal(user_tag(kMaxRanks, 0xFFFFFFFFu)));
static_assert(tag_internal(control_tag(3)) && tag_sender(control_tag(3)) == 3);

}  // namespace evb
