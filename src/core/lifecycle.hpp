#pragma once
// Where a rank's start-up and teardown time goes (results.startup,
// results.teardown; docs/BOOTSTRAP.md). Moments are taken on the steady
// clock, CLOCK_MONOTONIC: one clock for every process of a host, so the
// local launcher's moment before its first fork compares with its ranks'.
#include <chrono>

namespace evb {

// One rank's phases, in seconds.
struct Lifecycle {
  double join_s = 0;      // launch to the bootstrap's welcome (every rank joined)
  double connect_s = 0;   // the driver created, addresses exchanged, peers connected
  double setup_s = 0;     // the protocol's set-up (memory, windows) to the set-up barrier
  double teardown_s = 0;  // the data phase over on every rank (a barrier) to the driver shut down
  double ready_s() const { return join_s + connect_s + setup_s; }
};

// The moments a rank's worker passes, turned into a Lifecycle.
class LifecycleClock {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LifecycleClock(Clock::time_point launched)
      : launched_(launched), joined_(Clock::now()) {}
  void connected() { connected_ = Clock::now(); }
  void ready() { ready_ = Clock::now(); }
  void data_ended() { data_end_ = Clock::now(); }
  void shut_down() { shut_down_ = Clock::now(); }
  Lifecycle phases() const;

 private:
  Clock::time_point launched_, joined_, connected_, ready_, data_end_, shut_down_;
};

// This process's start (the kernel's start time in /proc/self/stat, 10 ms
// ticks) on the steady clock; now when it cannot be read.
std::chrono::steady_clock::time_point process_start();

}  // namespace evb
