#include "drivers/verbs/verbs_work.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cstddef>
#include <limits>

namespace evb::verbs {

SgeList build_sges(std::span<const Segment> segments, std::span<ibv_sge> out, size_t max_sge,
                   uint64_t max_message) {
  SgeList r;
  const size_t limit = std::min(out.size(), max_sge);
  if (segments.empty()) {
    r.error = "no segments";
    return r;
  }
  if (segments.size() > limit) {
    r.error = std::to_string(segments.size()) + " segments, the queue pair takes " +
              std::to_string(limit);
    return r;
  }
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    if (s.reg == nullptr || s.reg->descriptor() == nullptr) {
      r.error = "segment " + std::to_string(i) + " has no verbs registration";
      return r;
    }
    if (!s.reg->covers(s.data, s.size)) {
      r.error = "segment " + std::to_string(i) + " lies outside its registration";
      return r;
    }
    if (s.size > std::numeric_limits<uint32_t>::max() || s.size > max_message - r.bytes) {
      r.error = "message longer than " + std::to_string(max_message) + " bytes";
      return r;
    }
    const auto* keys = static_cast<const MemoryKeys*>(s.reg->descriptor());
    out[i] =
        ibv_sge{reinterpret_cast<uintptr_t>(s.data), static_cast<uint32_t>(s.size), keys->lkey};
    r.bytes += s.size;
  }
  r.count = segments.size();
  return r;
}

ibv_send_wr make_send(uint64_t wr_id, std::span<ibv_sge> sges, uint64_t bytes, bool signalled,
                      size_t max_inline) {
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = sges.data();
  wr.num_sge = static_cast<int>(sges.size());
  wr.opcode = IBV_WR_SEND;
  if (signalled) wr.send_flags |= IBV_SEND_SIGNALED;
  if (bytes <= max_inline) wr.send_flags |= IBV_SEND_INLINE;
  return wr;
}

std::optional<std::string> make_write(uint64_t wr_id, std::span<ibv_sge> sges, uint64_t bytes,
                                      const RemoteRegion& remote, uint64_t offset,
                                      std::optional<uint32_t> immediate, bool signalled,
                                      ibv_send_wr& out) {
  if (offset > remote.size || bytes > remote.size - offset)
    return "write of " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
           " exceeds the peer's region of " + std::to_string(remote.size) + " bytes";
  out = ibv_send_wr{};
  out.wr_id = wr_id;
  out.sg_list = sges.data();
  out.num_sge = static_cast<int>(sges.size());
  out.opcode = immediate ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
  if (immediate) out.imm_data = htonl(*immediate);
  if (signalled) out.send_flags |= IBV_SEND_SIGNALED;
  out.wr.rdma.remote_addr = remote.address + offset;
  out.wr.rdma.rkey = remote.rkey;
  return std::nullopt;
}

namespace {

void put_le(std::string& b, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b[at + i] = static_cast<char>(v >> (8 * i));
}

uint64_t get_le(std::span<const std::byte> b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | std::to_integer<uint64_t>(b[at + i]);
  return v;
}

}  // namespace

// Little-endian: address (8), size (8), rkey (4).
std::string pack_region(const RemoteRegion& r) {
  std::string b(kPackedRegionSize, '\0');
  put_le(b, 0, r.address, 8);
  put_le(b, 8, r.size, 8);
  put_le(b, 16, r.rkey, 4);
  return b;
}

std::optional<RemoteRegion> unpack_region(std::span<const std::byte> bytes) {
  if (bytes.size() != kPackedRegionSize) return std::nullopt;
  RemoteRegion r;
  r.address = get_le(bytes, 0, 8);
  r.size = get_le(bytes, 8, 8);
  r.rkey = static_cast<uint32_t>(get_le(bytes, 16, 4));
  if (r.size == 0 || r.address > std::numeric_limits<uint64_t>::max() - r.size) return std::nullopt;
  return r;
}

}  // namespace evb::verbs
