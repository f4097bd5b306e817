#pragma once
// Work-request construction: evbench Segments into scatter/gather lists,
// sends and RDMA WRITE (WITH IMMEDIATE) requests. Pure functions over
// libibverbs' structs, so they are tested without a device.
//
// Every check happens here, before anything reaches the queue pair: a
// segment without a verbs registration or outside it, more segments than
// the queue pair's max_sge, a length sum that overflows or exceeds the
// largest message, a write past the end of the peer's region. Failures come
// back as a message (the data path reports them as completions, it never
// throws).
#include <infiniband/verbs.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "drivers/api/driver.hpp"

namespace evb::verbs {

// What a verbs Registration's descriptor() points to: the keys of its
// memory region (owned by the registration, next to its ibv_mr).
struct MemoryKeys {
  uint32_t lkey = 0;
  uint32_t rkey = 0;
};

// A peer's region as its packed key described it.
struct RemoteRegion {
  uint64_t address = 0;  // the peer's virtual address of the region's first byte
  uint32_t rkey = 0;
  uint64_t size = 0;
};

struct SgeList {
  size_t count = 0;
  uint64_t bytes = 0;
  std::string error;  // non-empty: refused, nothing usable in `out`
};

// Fills out[0..count) from `segments`; refuses more than min(out.size(),
// max_sge) segments, any without a registration covering it, and a total
// above max_message.
SgeList build_sges(std::span<const Segment> segments, std::span<ibv_sge> out, size_t max_sge,
                   uint64_t max_message);

// A SEND of `sges`; inline when it fits `max_inline`; signalled on request.
ibv_send_wr make_send(uint64_t wr_id, std::span<ibv_sge> sges, uint64_t bytes, bool signalled,
                      size_t max_inline);

// An RDMA WRITE of `bytes` from `sges` to `offset` in `remote`, WITH
// IMMEDIATE when `immediate` is set (network byte order on the wire, as
// verbs requires). Returns an error message when [offset, offset+bytes)
// does not lie within the region.
std::optional<std::string> make_write(uint64_t wr_id, std::span<ibv_sge> sges, uint64_t bytes,
                                      const RemoteRegion& remote, uint64_t offset,
                                      std::optional<uint32_t> immediate, bool signalled,
                                      ibv_send_wr& out);

// The packed key a peer needs to write into a region, and its checked
// inverse (exact length, non-wrapping range).
std::string pack_region(const RemoteRegion& r);
std::optional<RemoteRegion> unpack_region(std::span<const std::byte> bytes);
constexpr size_t kPackedRegionSize = 20;

}  // namespace evb::verbs
