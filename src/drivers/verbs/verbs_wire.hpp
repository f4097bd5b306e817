#pragma once
// What the verbs driver puts on the wire besides RDMA writes, and how it
// names its work requests. Pure encoding, tested without a device.
//
// Every SEND starts with a 16-byte header, little-endian:
//   0 u16 magic kWireMagic   2 u8 kind (WireKind)   3 u8 reserved (0)
//   4 u32 tag                8 u64 a
// data_first: a = the whole message's length; its payload follows, and the
// rest arrives in data_more SENDs (a = 0) on the same queue pair, in order
// (reliable connection), each at most the receive buffer's size.
// hello: a = run id; 16 more bytes follow: u64 address of the sender's
// credit words, u32 their rkey, u32 the number of ranks.
// bye: nothing more. decode_header() refuses anything else whole.
//
// Credits come back by plain RDMA WRITEs of a 32-bit running count into
// the peer's credit word for this rank (no receive buffer consumed), so
// credit returns never need credits themselves.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "drivers/api/driver.hpp"

namespace evb::verbs {

enum class WireKind : uint8_t { hello = 1, data_first = 2, data_more = 3, bye = 4 };

struct WireHeader {
  WireKind kind = WireKind::data_first;
  uint32_t tag = 0;
  uint64_t a = 0;
};

struct HelloBody {
  uint64_t credit_address = 0;  // the sender's credit words (one u32 per rank)
  uint32_t credit_rkey = 0;
  uint32_t ranks = 0;
};

constexpr uint16_t kWireMagic = 0x5645;  // "EV"
constexpr size_t kHeaderBytes = 16;
constexpr size_t kHelloBytes = kHeaderBytes + 16;

void encode_header(const WireHeader& h, std::byte* out);  // kHeaderBytes
// Null unless `bytes` starts with a header of a known kind, the message is
// long enough for it, and a hello or bye has exactly its length.
std::optional<WireHeader> decode_header(std::span<const std::byte> bytes);
void encode_hello(uint64_t run_id, const HelloBody& b, std::byte* out);  // kHelloBytes
// The body of a decoded hello (`bytes` is the whole message).
HelloBody decode_hello_body(std::span<const std::byte> bytes);

// Credits returned by a peer: its running count `now` (32 bits, wrapping)
// against the count last seen. Null when the difference exceeds `owed`
// (what this rank spent and has not had back): the peer is broken.
std::optional<uint32_t> credit_delta(uint32_t now, uint32_t last_seen, uint64_t owed);

// Copies `n` bytes, starting `offset` bytes into the concatenation of
// `segments`, to `out` (the caller keeps offset + n within their total).
void gather_copy(std::span<const Segment> segments, uint64_t offset, std::byte* out, size_t n);

// The payload one SEND of a message carries at most, in receive buffers of
// `buffer_bytes`.
constexpr size_t chunk_payload(size_t buffer_bytes) {
  return buffer_bytes - kHeaderBytes;
}
// How many SENDs a message of `length` bytes takes (at least one).
constexpr uint64_t chunk_count(uint64_t length, size_t buffer_bytes) {
  return length == 0 ? 1 : (length + chunk_payload(buffer_bytes) - 1) / chunk_payload(buffer_bytes);
}

// Work-request ids: a record index in the low 32 bits and the record's
// generation above, so a completion for a record reused since (a queue pair
// flushed after its requests were given up) is recognised and ignored.
// Receive work requests carry kRecvBit and their buffer's index (a failed
// completion has no opcode to tell them apart).
constexpr uint64_t kRecvBit = 1ull << 63;
constexpr uint64_t make_wr_id(uint32_t index, uint32_t generation) {
  return (static_cast<uint64_t>(generation & 0x7FFFFFFFu) << 32) | index;
}
constexpr uint64_t recv_wr_id(uint32_t buffer) {
  return kRecvBit | buffer;
}
constexpr bool is_recv(uint64_t wr_id) {
  return (wr_id & kRecvBit) != 0;
}
constexpr uint32_t wr_index(uint64_t wr_id) {
  return static_cast<uint32_t>(wr_id);
}
constexpr uint32_t wr_generation(uint64_t wr_id) {
  return static_cast<uint32_t>(wr_id >> 32) & 0x7FFFFFFFu;
}

// How receive work requests are stocked: every peer may have `credits`
// receive-consuming operations (SENDs, writes with immediate) in flight, so
// a shared receive queue needs credits x peers entries, per-queue-pair
// receive queues `credits` each. A shared queue is used when the device has
// one large enough.
struct ReceivePlan {
  bool shared = false;
  size_t per_qp = 0;  // receive WRs per queue pair (0 with a shared queue)
  size_t total = 0;   // receive buffers posted altogether
  std::string error;  // non-empty: the device cannot hold them
};
struct DeviceLimits {
  size_t max_qp_wr = 0;
  size_t max_srq = 0;  // 0: no shared receive queues
  size_t max_srq_wr = 0;
};
ReceivePlan plan_receives(size_t credits, size_t peers, const DeviceLimits& d);

}  // namespace evb::verbs
