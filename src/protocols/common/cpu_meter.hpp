#pragma once
// CpuMeter: the CPU time this thread spends inside stretches of work (the
// EVM's handlers), read with clock_gettime(CLOCK_THREAD_CPUTIME_ID) at each
// end. Such a clock call is a system call, and part of its time falls inside
// every stretch: the meter measures that part once (calibration: the
// smallest of many empty stretches) and takes it out of net_ns(), so a
// figure per event does not grow with how often the clock was read. The
// rest of each call's time falls outside every stretch and is in no figure.
#include <cstdint>

namespace evb {

class CpuMeter {
 public:
  CpuMeter();  // calibrates
  static int64_t thread_cpu_ns();

  // One stretch: begin() ... end().
  void begin() { started_ns_ = thread_cpu_ns(); }
  void end() {
    raw_ns_ += static_cast<uint64_t>(thread_cpu_ns() - started_ns_);
    ++stretches_;
  }

  // The whole loop of the thread (handlers, driver, polling), begun and
  // ended once (Engine::run).
  void begin_loop() { loop_ns_ = -thread_cpu_ns(); }
  void end_loop() { loop_ns_ += thread_cpu_ns(); }
  uint64_t loop_ns() const { return loop_ns_ > 0 ? static_cast<uint64_t>(loop_ns_) : 0; }

  uint64_t raw_ns() const { return raw_ns_; }
  uint64_t stretches() const { return stretches_; }
  // What an empty stretch measures (the clock's own share).
  double overhead_ns() const { return overhead_ns_; }
  // raw_ns() less stretches() x overhead_ns(), at least 0.
  uint64_t net_ns() const;

 private:
  int64_t started_ns_ = 0;
  int64_t loop_ns_ = 0;
  uint64_t raw_ns_ = 0;
  uint64_t stretches_ = 0;
  double overhead_ns_ = 0;
};

}  // namespace evb
