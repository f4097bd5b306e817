#pragma once
// Shared helpers of the libfabric driver tests: N drivers of one provider in
// one process over loopback, connected from threads, then driven from the
// test thread with deadlines.
#include <gtest/gtest.h>
#include <rdma/fabric.h>
#include <time.h>

#include <atomic>
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
#include "drivers/libfabric/lf_probe.hpp"

namespace evb::libfabric::test {

using Clock = std::chrono::steady_clock;

using evb::test::all_but;
using evb::test::context_of;
using evb::test::pattern;

// The libfabric driver's probe (what `evbench drivers` shows), run once.
inline const DriverProbe& driver_probe() {
  static const DriverProbe p = probe_libfabric();
  return p;
}

// "" when the driver's probe does not rule `provider` out here, else the
// probe's reason. Only the probe decides whether a provider's tests run: a
// provider it does not rule out must work, and its tests fail if it does not.
inline std::string unusable(const std::string& provider) {
  for (const auto& [name, why] : driver_probe().variants_not_here) {
    if (name == "libfabric/" + provider)
      return "the libfabric driver's probe says " + name + " cannot run here: " + why;
  }
  return "";
}

#define LF_REQUIRE_PROVIDER(provider)                                       \
  do {                                                                      \
    const std::string lf_why_ = ::evb::libfabric::test::unusable(provider); \
    if (!lf_why_.empty()) GTEST_SKIP() << lf_why_;                          \
  } while (0)

// The libfabric version the quirks (tests/unit/libfabric/lf_quirks_test.cpp,
// docs/drivers/libfabric.md, Limitations) were recorded for, and whether the
// library loaded now (fi_version()) is that one.
inline constexpr const char* kQuirkVersion = "1.17";
inline std::string running_version() {
  const uint32_t v = fi_version();
  return std::to_string(FI_MAJOR(v)) + "." + std::to_string(FI_MINOR(v));
}
inline bool quirk_version_is_current() {
  return running_version() == kQuirkVersion;
}

inline LfOptions options_for(const std::string& provider) {
  LfOptions o = parse_lf_options(nullptr);
  o.provider = provider;
  o.connect_timeout = std::chrono::milliseconds(10000);
  o.shutdown_timeout = std::chrono::milliseconds(2000);
  return o;
}

class Cluster {
 public:
  Cluster(int n, const LfOptions& options) : in_turns_(options.provider == "shm") {
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
  // On shm the ranks take turns in rank order, each polling its driver while
  // it waits: shm (1.17) maps a peer endpoint of the same process by taking
  // that endpoint's own region, which its fi_close unmaps, so a goodbye sent
  // to a rank that has just closed wrote into freed memory (a segfault in
  // pthread_spin_lock under LfDriver::teardown; docs/TESTING.md "Second
  // attempts", as the conformance harness's shared_in_process).
  void shutdown_all() {
    std::vector<int> order;
    for (int i = 0; i < size(); ++i)
      if (drivers_[i]) order.push_back(i);
    std::atomic<size_t> turn{0};
    std::vector<std::thread> threads;
    for (size_t k = 0; k < order.size(); ++k) {
      threads.emplace_back([this, &turn, &order, k, turns = in_turns_] {
        LfDriver& d = *drivers_[order[k]];
        Completion buf[32];
        while (turns && turn.load() != k) d.poll(buf);
        d.shutdown();
        turn.store(k + 1);
      });
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

  // Pumps until `rank` has `n` completions or `limit` passes, without
  // failing; returns what arrived (up to `n`). For tests that record what a
  // library does, where "never arrived" is the observation.
  std::vector<Completion> collect(int rank, size_t n, std::chrono::milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    while (got_[rank].size() < n && Clock::now() < deadline) pump();
    std::vector<Completion> out;
    while (!got_[rank].empty() && out.size() < n) {
      out.push_back(got_[rank].front());
      got_[rank].pop_front();
    }
    return out;
  }

  // The CPU time (user + system) the calling thread has used.
  static std::chrono::nanoseconds thread_cpu() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
  }

  // As collect(), for "never arrives": pumps until `rank` has `n`
  // completions, or until this thread has polled for `cpu` of its own CPU
  // time since the last completion came (or `wall` passes). A bound on
  // "never" that load cannot shorten: a thread the machine starves spends no
  // CPU, so its wait goes on; messages that flow take microseconds of it.
  std::vector<Completion> collect_until_stalled(
      int rank, size_t n, std::chrono::milliseconds cpu = std::chrono::seconds(2),
      std::chrono::milliseconds wall = std::chrono::seconds(60)) {
    const auto deadline = Clock::now() + wall;
    size_t seen = got_[rank].size();
    auto since = thread_cpu();
    while (got_[rank].size() < n && Clock::now() < deadline && thread_cpu() - since < cpu) {
      pump();
      if (got_[rank].size() != seen) {
        seen = got_[rank].size();
        since = thread_cpu();
      }
    }
    return collect(rank, n, std::chrono::milliseconds(0));
  }

 private:
  bool in_turns_ = false;  // shutdown_all(): one rank after the other (shm)
  std::vector<std::unique_ptr<LfDriver>> drivers_;
  std::vector<std::string> addresses_;
  std::vector<std::deque<Completion>> got_;
  std::vector<bool> elsewhere_;
};

}  // namespace evb::libfabric::test
