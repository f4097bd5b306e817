#pragma once
// Shared helpers of the libfabric driver tests: N drivers of one provider in
// one process over loopback, connected from threads, then driven from the
// test thread with deadlines.
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
#include "drivers/libfabric/lf_driver.hpp"
#include "drivers/libfabric/lf_fabric.hpp"

namespace evb::libfabric::test {

using Clock = std::chrono::steady_clock;

using evb::test::all_but;
using evb::test::context_of;
using evb::test::pattern;

// "" when `provider` can open an endpoint here (on loopback), else why not.
inline std::string unusable(const std::string& provider) {
  InfoRequest r;
  r.provider = canonical_provider(provider);
  if (is_ip_provider(r.provider)) r.node = "127.0.0.1";
  std::string why;
  InfoPtr info = select_info(r, &why);
  return info ? std::string() : why;
}

#define LF_REQUIRE_PROVIDER(provider)                                                       \
  do {                                                                                      \
    const std::string lf_why_ = ::evb::libfabric::test::unusable(provider);                 \
    if (!lf_why_.empty()) GTEST_SKIP() << (provider) << " is not usable here: " << lf_why_; \
  } while (0)

inline LfOptions options_for(const std::string& provider) {
  LfOptions o;
  o.provider = provider;
  o.connect_timeout = std::chrono::milliseconds(10000);
  o.shutdown_timeout = std::chrono::milliseconds(2000);
  return o;
}

class Cluster {
 public:
  Cluster(int n, const LfOptions& options) {
    for (int i = 0; i < n; ++i) {
      drivers_.push_back(std::make_unique<LfDriver>(context_of(i, n), options));
      addresses_.push_back(drivers_.back()->local_address());
    }
    got_.resize(n);
    elsewhere_.assign(n, false);
  }

  // Connects every rank to every other one, one thread per rank (connect()
  // waits for the peers' hellos).
  void connect() { evb::test::connect_all(drivers_, addresses_); }

  // Shuts every live rank down at once, as ranks of a run do (a goodbye
  // completes only while its receiver makes progress on some providers).
  void shutdown_all() {
    std::vector<std::thread> threads;
    for (auto& d : drivers_) {
      if (d) threads.emplace_back([&d] { d->shutdown(); });
    }
    for (auto& t : threads) t.join();
  }

  int size() const { return static_cast<int>(drivers_.size()); }
  LfDriver& operator[](int rank) { return *drivers_[rank]; }
  const std::vector<std::string>& addresses() const { return addresses_; }
  void destroy(int rank) { drivers_[rank].reset(); }

  // While another thread drives `rank` (FI_THREAD_DOMAIN: one thread per
  // driver), pump() leaves it alone.
  void set_elsewhere(int rank, bool elsewhere) { elsewhere_[rank] = elsewhere; }

  // Polls every live driver once, queueing completions per rank.
  void pump() {
    Completion buf[32];
    for (int i = 0; i < size(); ++i) {
      if (!drivers_[i] || elsewhere_[i]) continue;
      const size_t n = drivers_[i]->poll(buf);
      for (size_t k = 0; k < n; ++k) got_[i].push_back(buf[k]);
    }
  }

  // Pumps until `rank` has `n` completions (or `limit` passes); returns them.
  std::vector<Completion> take(int rank, size_t n,
                               std::chrono::milliseconds limit = std::chrono::seconds(15)) {
    const auto deadline = Clock::now() + limit;
    while (got_[rank].size() < n && Clock::now() < deadline) pump();
    EXPECT_GE(got_[rank].size(), n)
        << "rank " << rank << " timed out waiting for completions"
        << " (last error: " << (drivers_[rank] ? drivers_[rank]->last_error() : "") << ")";
    std::vector<Completion> out;
    while (!got_[rank].empty() && out.size() < n) {
      out.push_back(got_[rank].front());
      got_[rank].pop_front();
    }
    return out;
  }

  // Pumps for `d` and returns how many completions `rank` has queued.
  size_t settle(int rank, std::chrono::milliseconds d) {
    const auto deadline = Clock::now() + d;
    while (Clock::now() < deadline) pump();
    return got_[rank].size();
  }
  size_t queued(int rank) const { return got_[rank].size(); }

 private:
  std::vector<std::unique_ptr<LfDriver>> drivers_;
  std::vector<std::string> addresses_;
  std::vector<std::deque<Completion>> got_;
  std::vector<bool> elsewhere_;
};

}  // namespace evb::libfabric::test
