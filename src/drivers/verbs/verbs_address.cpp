#include "drivers/verbs/verbs_address.hpp"

#include <cstring>

#include "core/error.hpp"

namespace evb::verbs {

namespace {

constexpr const char* kPrefix = "evbverbs1:";
constexpr uint8_t kVersion = 1;
// version, flags, gid_index, mtu, lid (2), gid (16), rank count (4)
constexpr size_t kHeader = 1 + 1 + 1 + 1 + 2 + 16 + 4;
constexpr size_t kPerRank = 8;
constexpr uint8_t kFlagGid = 1;

void put(std::vector<uint8_t>& b, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

uint64_t get(const std::vector<uint8_t>& b, size_t& pos, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | b[pos++];
  return v;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string encode_address(const VerbsAddress& a) {
  std::vector<uint8_t> b;
  b.reserve(kHeader + kPerRank * a.qps.size());
  put(b, kVersion, 1);
  put(b, a.use_gid ? kFlagGid : 0, 1);
  put(b, a.gid_index, 1);
  put(b, a.mtu, 1);
  put(b, a.lid, 2);
  b.insert(b.end(), a.gid.begin(), a.gid.end());
  put(b, a.qps.size(), 4);
  for (const QpEndpoint& q : a.qps) {
    put(b, q.qpn & kMax24, 4);
    put(b, q.psn & kMax24, 4);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = kPrefix;
  for (uint8_t x : b) {
    out += kHex[x >> 4];
    out += kHex[x & 15];
  }
  return out;
}

VerbsAddress decode_address(const std::string& text, int from, int ranks) {
  auto fail = [&](const std::string& why) -> VerbsAddress {
    throw Error("verbs: address of rank " + std::to_string(from) + ": " + why);
  };
  const size_t plen = std::strlen(kPrefix);
  if (text.compare(0, plen, kPrefix) != 0)
    return fail("not a verbs address (expected prefix " + std::string(kPrefix) +
                "; is every rank running the verbs driver of the same evbench version?)");
  const size_t digits = text.size() - plen;
  if (digits % 2 != 0) return fail("odd number of hex digits");
  std::vector<uint8_t> b(digits / 2);
  for (size_t i = 0; i < b.size(); ++i) {
    const int hi = hex_digit(text[plen + 2 * i]);
    const int lo = hex_digit(text[plen + 2 * i + 1]);
    if (hi < 0 || lo < 0) return fail("bad hex digit");
    b[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  if (b.size() < kHeader)
    return fail("too short (" + std::to_string(b.size()) + " bytes, header is " +
                std::to_string(kHeader) + ")");
  size_t pos = 0;
  VerbsAddress a;
  if (get(b, pos, 1) != kVersion) return fail("unknown version");
  const uint64_t flags = get(b, pos, 1);
  if ((flags & ~uint64_t{kFlagGid}) != 0) return fail("unknown flags");
  a.use_gid = (flags & kFlagGid) != 0;
  a.gid_index = static_cast<uint8_t>(get(b, pos, 1));
  a.mtu = static_cast<uint8_t>(get(b, pos, 1));
  if (a.mtu < 1 || a.mtu > 5) return fail("bad MTU code " + std::to_string(a.mtu));
  a.lid = static_cast<uint16_t>(get(b, pos, 2));
  std::memcpy(a.gid.data(), b.data() + pos, a.gid.size());
  pos += a.gid.size();
  const uint64_t n = get(b, pos, 4);
  if (ranks < 0 || n != static_cast<uint64_t>(ranks))
    return fail("announces " + std::to_string(n) + " ranks, the run has " + std::to_string(ranks));
  // n == ranks is small, so n * kPerRank cannot overflow.
  if (b.size() - kHeader != n * kPerRank) return fail("length does not match its rank count");
  if (!a.use_gid && a.lid == 0) return fail("neither a LID nor a GID");
  if (a.use_gid && a.gid == std::array<uint8_t, 16>{}) return fail("GID is all zeros");
  a.qps.resize(n);
  for (uint64_t r = 0; r < n; ++r) {
    const uint64_t qpn = get(b, pos, 4);
    const uint64_t psn = get(b, pos, 4);
    if (qpn > kMax24 || psn > kMax24)
      return fail("queue pair for rank " + std::to_string(r) + " exceeds 24 bits");
    a.qps[r] = QpEndpoint{static_cast<uint32_t>(qpn), static_cast<uint32_t>(psn)};
  }
  return a;
}

}  // namespace evb::verbs
