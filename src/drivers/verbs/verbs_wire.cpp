#include "drivers/verbs/verbs_wire.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace evb::verbs {

namespace {

void put(std::byte* out, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out[at + i] = static_cast<std::byte>(v >> (8 * i));
}

uint64_t get(std::span<const std::byte> b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | std::to_integer<uint64_t>(b[at + i]);
  return v;
}

}  // namespace

void encode_header(const WireHeader& h, std::byte* out) {
  put(out, 0, kWireMagic, 2);
  put(out, 2, static_cast<uint8_t>(h.kind), 1);
  put(out, 3, 0, 1);
  put(out, 4, h.tag, 4);
  put(out, 8, h.a, 8);
}

std::optional<WireHeader> decode_header(std::span<const std::byte> bytes) {
  if (bytes.size() < kHeaderBytes) return std::nullopt;
  if (get(bytes, 0, 2) != kWireMagic || get(bytes, 3, 1) != 0) return std::nullopt;
  WireHeader h;
  const uint64_t kind = get(bytes, 2, 1);
  h.tag = static_cast<uint32_t>(get(bytes, 4, 4));
  h.a = get(bytes, 8, 8);
  switch (kind) {
    case static_cast<uint8_t>(WireKind::hello):
      if (bytes.size() != kHelloBytes || h.tag != 0) return std::nullopt;
      break;
    case static_cast<uint8_t>(WireKind::bye):
      if (bytes.size() != kHeaderBytes || h.tag != 0 || h.a != 0) return std::nullopt;
      break;
    case static_cast<uint8_t>(WireKind::data_first):
      break;
    case static_cast<uint8_t>(WireKind::data_more):
      if (h.a != 0 || h.tag != 0) return std::nullopt;
      break;
    default:
      return std::nullopt;
  }
  h.kind = static_cast<WireKind>(kind);
  return h;
}

void encode_hello(uint64_t run_id, const HelloBody& b, std::byte* out) {
  encode_header(WireHeader{WireKind::hello, 0, run_id}, out);
  put(out, kHeaderBytes, b.credit_address, 8);
  put(out, kHeaderBytes + 8, b.credit_rkey, 4);
  put(out, kHeaderBytes + 12, b.ranks, 4);
}

HelloBody decode_hello_body(std::span<const std::byte> bytes) {
  HelloBody b;
  if (bytes.size() < kHelloBytes) return b;
  b.credit_address = get(bytes, kHeaderBytes, 8);
  b.credit_rkey = static_cast<uint32_t>(get(bytes, kHeaderBytes + 8, 4));
  b.ranks = static_cast<uint32_t>(get(bytes, kHeaderBytes + 12, 4));
  return b;
}

void gather_copy(std::span<const Segment> segments, uint64_t offset, std::byte* out, size_t n) {
  for (const Segment& s : segments) {
    if (n == 0) return;
    if (offset >= s.size) {
      offset -= s.size;
      continue;
    }
    const size_t take = std::min<uint64_t>(s.size - offset, n);
    std::memcpy(out, static_cast<const std::byte*>(s.data) + offset, take);
    out += take;
    n -= take;
    offset = 0;
  }
}

std::optional<uint32_t> credit_delta(uint32_t now, uint32_t last_seen, uint64_t owed) {
  const uint32_t d = now - last_seen;  // modulo 2^32: the count wraps
  if (d > owed) return std::nullopt;
  return d;
}

ReceivePlan plan_receives(size_t credits, size_t peers, const DeviceLimits& d) {
  ReceivePlan p;
  const size_t want = credits * std::max<size_t>(peers, 1);
  if (d.max_srq > 0 && want <= d.max_srq_wr) {
    p.shared = true;
    p.total = want;
    return p;
  }
  if (credits > d.max_qp_wr) {
    p.error = "driver_options.command_credits = " + std::to_string(credits) +
              " exceeds the device's " + std::to_string(d.max_qp_wr) +
              " receive work requests per queue pair";
    return p;
  }
  p.per_qp = credits;
  p.total = want;
  return p;
}

}  // namespace evb::verbs
