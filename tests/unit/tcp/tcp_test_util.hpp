#pragma once
// Shared helpers of the tcp driver tests: N drivers in one process on
// 127.0.0.1, connected from threads, then driven from the test thread.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../support/driver_test_util.hpp"
#include "drivers/tcp/tcp_driver.hpp"

namespace evb::tcp::test {

using evb::test::all_but;
using evb::test::context_of;
using evb::test::pattern;

class Cluster {
 public:
  explicit Cluster(int n, TcpOptions options = parse_tcp_options(nullptr)) {
    options.connect_timeout = std::chrono::milliseconds(5000);
    options.shutdown_timeout = std::chrono::milliseconds(2000);
    for (int i = 0; i < n; ++i) {
      drivers_.push_back(make_tcp_driver(context_of(i, n), options));
      addresses_.push_back(drivers_.back()->local_address());
    }
    got_.resize(n);
  }

  // Connects every rank to every other one, one thread per rank.
  void connect() { evb::test::connect_all(drivers_, addresses_); }

  int size() const { return static_cast<int>(drivers_.size()); }
  Driver& operator[](int rank) { return *drivers_[rank]; }
  const std::vector<std::string>& addresses() const { return addresses_; }
  void destroy(int rank) { drivers_[rank].reset(); }

  // Polls every live driver once, queueing completions per rank.
  void pump() {
    Completion buf[32];
    for (int i = 0; i < size(); ++i) {
      if (!drivers_[i]) continue;
      size_t n = drivers_[i]->poll(buf);
      for (size_t k = 0; k < n; ++k) got_[i].push_back(buf[k]);
    }
  }

  // Pumps until `rank` has `n` completions (or 10 s pass); returns them.
  std::vector<Completion> take(int rank, size_t n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (got_[rank].size() < n && std::chrono::steady_clock::now() < deadline) pump();
    EXPECT_GE(got_[rank].size(), n) << "rank " << rank << " timed out waiting for completions";
    std::vector<Completion> out;
    while (!got_[rank].empty() && out.size() < n) {
      out.push_back(got_[rank].front());
      got_[rank].pop_front();
    }
    return out;
  }
  size_t queued(int rank) const { return got_[rank].size(); }

 private:
  std::vector<std::unique_ptr<Driver>> drivers_;
  std::vector<std::string> addresses_;
  std::vector<std::deque<Completion>> got_;
};

}  // namespace evb::tcp::test
