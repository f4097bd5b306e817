#include "drivers/common/control_message.hpp"

#include <cstring>
#include <string>

namespace evb {

namespace {

template <class T>
void put(std::byte* out, size_t at, T v) {
  std::memcpy(out + at, &v, sizeof v);
}
template <class T>
T get(std::span<const std::byte> in, size_t at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof v);
  return v;
}

}  // namespace

void encode(const CtlMessage& m, std::byte* out) {
  put<uint32_t>(out, 0, kControlMagic);
  put<uint16_t>(out, 4, kControlVersion);
  put<uint16_t>(out, 6, static_cast<uint16_t>(m.kind));
  put<uint32_t>(out, 8, m.rank);
  put<uint32_t>(out, 12, m.size);
  put<uint64_t>(out, 16, m.a);
  put<uint64_t>(out, 24, m.b);
}

std::optional<CtlMessage> decode(std::span<const std::byte> in) {
  if (in.size() != kControlBytes) return std::nullopt;
  if (get<uint32_t>(in, 0) != kControlMagic || get<uint16_t>(in, 4) != kControlVersion)
    return std::nullopt;
  const auto kind = get<uint16_t>(in, 6);
  if (kind < 1 || kind > 5) return std::nullopt;
  CtlMessage m;
  m.kind = static_cast<CtlKind>(kind);
  m.rank = get<uint32_t>(in, 8);
  m.size = get<uint32_t>(in, 12);
  m.a = get<uint64_t>(in, 16);
  m.b = get<uint64_t>(in, 24);
  return m;
}

uint64_t run_id(const std::vector<std::string>& addresses) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
      h ^= b[i];
      h *= 1099511628211ull;
    }
  };
  const uint64_t n = addresses.size();
  mix(&n, sizeof n);
  for (const auto& a : addresses) {
    const uint64_t len = a.size();
    mix(&len, sizeof len);
    mix(a.data(), a.size());
  }
  return h;
}

}  // namespace evb
