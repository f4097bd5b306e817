#pragma once
// Helpers every driver's unit tests share: a DriverContext for a rank of an
// all-local run, the peer list "everyone but me", deterministic bytes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "drivers/api/registry.hpp"

namespace evb::test {

inline DriverContext context_of(int rank, int size) {
  DriverContext c;
  c.rank = rank;
  c.size = size;
  c.all_local = true;
  return c;
}

inline std::vector<PeerId> all_but(int rank, int size) {
  std::vector<PeerId> peers;
  for (int i = 0; i < size; ++i) {
    if (i != rank) peers.push_back(i);
  }
  return peers;
}

// Deterministic bytes for content checks.
inline std::vector<std::byte> pattern(size_t n, uint32_t seed) {
  std::vector<std::byte> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::byte>(x >> 24);
  }
  return v;
}

}  // namespace evb::test
