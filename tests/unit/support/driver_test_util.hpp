#pragma once
// Helpers every driver's unit tests share: a DriverContext for a rank of an
// all-local run, the peer list "everyone but me", connecting N in-process
// drivers, deterministic bytes.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <thread>
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

// Connects every live driver (rank = index) to every other one, one thread
// per rank since connect() may wait for its peers; rethrows the first error.
template <class D>
void connect_all(std::vector<std::unique_ptr<D>>& drivers,
                 const std::vector<std::string>& addresses) {
  const int n = static_cast<int>(drivers.size());
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      try {
        drivers[i]->connect(addresses, all_but(i, n));
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
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
