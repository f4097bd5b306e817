#pragma once
// Helpers every driver's unit tests share: a DriverContext for a rank of an
// all-local run, the peer list "everyone but me", connecting N in-process
// drivers, deterministic bytes, a bound on calls that must return.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
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

// Bounds a call that must return (wait() that must wake, connect() that
// must give up): while a HangGuard lives, a watchdog thread waits for it to
// go; past `limit` it prints a "[  HANG    ]" line naming the call and ends
// the process with status 1, so the test fails with a diagnosis instead of
// eating the ctest timeout. The limit only bounds a hang: it is generous and
// no test asserts how fast anything was.
class HangGuard {
 public:
  HangGuard(std::string what, std::chrono::milliseconds limit) : what_(std::move(what)) {
    watchdog_ = std::thread([this, limit] {
      std::unique_lock lock(m_);
      if (cv_.wait_for(lock, limit, [this] { return done_; })) return;
      std::fprintf(stderr,
                   "\n[  HANG    ] %s did not return within %lld ms. Exiting with status 1.\n",
                   what_.c_str(), static_cast<long long>(limit.count()));
      std::fflush(stderr);
      std::fflush(stdout);
      std::_Exit(1);
    });
  }
  ~HangGuard() {
    {
      std::lock_guard lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    watchdog_.join();
  }
  HangGuard(const HangGuard&) = delete;
  HangGuard& operator=(const HangGuard&) = delete;

 private:
  std::string what_;
  std::mutex m_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread watchdog_;
};

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
