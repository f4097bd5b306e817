#pragma once
// Helpers shared by the mpi driver tests: world rank/size, polling with a
// deadline, and byte patterns that encode (sender, message, offset).
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "drivers/mpi/mpi_driver.hpp"
#include "drivers/mpi/mpi_env.hpp"

namespace evb::mpi::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

inline std::unique_ptr<MpiDriver> make_driver(MpiOptions options = MpiOptions::from(nullptr)) {
  return std::make_unique<MpiDriver>(MPI_COMM_WORLD, world_rank(), options);
}

// Polls until `count` completions arrived or `timeout` passed.
inline std::vector<Completion> poll_n(Driver& d, size_t count,
                                      std::chrono::seconds timeout = std::chrono::seconds(30)) {
  std::vector<Completion> got;
  Completion buf[64];
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (got.size() < count && std::chrono::steady_clock::now() < deadline) {
    size_t n = d.poll(buf);
    got.insert(got.end(), buf, buf + n);
  }
  return got;
}

inline uint8_t pattern(int sender, uint32_t message, size_t offset) {
  return static_cast<uint8_t>(sender * 31 + message * 7 + offset * 13 + (offset >> 8));
}

}  // namespace evb::mpi::test
