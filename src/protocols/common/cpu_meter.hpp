#pragma once
// CpuMeter: the CPU time this thread spends inside stretches of work (the
// EVM's handlers), without a thread-CPU clock read around each stretch.
//
// The thread CPU clock (CLOCK_THREAD_CPUTIME_ID) is a system call
// (hundreds of ns on the 2-core development VM); read around every
// message the EVM handles it cost 8 % of an EVM-bound event rate. So stretches are timed
// with the monotonic clock (vDSO, tens of ns), which is the thread's CPU
// time too unless the thread lost the CPU inside the stretch. The thread
// CPU clock is read only at the two ends of a *window*: it opens at the
// first stretch after the last window closed and closes when the thread is
// about to give the CPU away itself (rest(): yield, wait, a stall), at the
// first stretch end kWindowNs after it opened, and at end_loop(). A closing
// window charges its stretches' wall time x the window's CPU share
// (thread CPU time / wall time between its ends, at most 1): 1 when the
// thread held the CPU all along (the charge is exact), and when it was
// preempted the stretches are charged their part of the CPU the thread
// had, which is right on average when preemption is independent of where
// the loop is (the error of one window is at most its time off the CPU;
// off_cpu_ns() sums those). Voluntary waits never fall inside a window,
// so they are not spread over the stretches.
//
// The monotonic clock's own share inside a stretch is measured once
// (calibration: the smallest of many empty stretches) and taken out of
// every stretch. Both clocks are the C library's clock_gettime (see the
// .cpp: the SMPI build maps clock_gettime to simulated time).
#include <cstdint>

namespace evb {

class CpuMeter {
 public:
  // The two clocks, in ns: the thread's CPU time and monotonic time
  // (injectable for tests).
  struct Clocks {
    int64_t (*cpu)();
    int64_t (*wall)();
  };
  static constexpr int64_t kWindowNs = 1'000'000;

  CpuMeter() : CpuMeter(Clocks{&thread_cpu_ns, &wall_ns}) {}
  explicit CpuMeter(Clocks clocks);  // calibrates
  static int64_t thread_cpu_ns();
  static int64_t wall_ns();

  // One stretch: begin() ... end().
  void begin() {
    if (!open_) open();
    started_ns_ = clocks_.wall();
  }
  void end() {
    const int64_t now = clocks_.wall();
    window_ns_ += static_cast<uint64_t>(now - started_ns_);
    ++window_stretches_;
    ++stretches_;
    if (now - anchor_wall_ns_ >= kWindowNs) close();
  }
  // The thread is about to give up the CPU (sched_yield, a driver wait, a
  // stall): the open window, if any, is charged now.
  void rest() {
    if (open_) close();
  }

  // The whole loop of the thread (handlers, driver, polling), begun and
  // ended once (Engine::run); end_loop() charges the open window.
  void begin_loop() { loop_ns_ = -clocks_.cpu(); }
  void end_loop() {
    rest();
    loop_ns_ += clocks_.cpu();
  }
  uint64_t loop_ns() const { return loop_ns_ > 0 ? static_cast<uint64_t>(loop_ns_) : 0; }

  uint64_t stretches() const { return stretches_; }
  // What an empty stretch measures (the monotonic clock's own share).
  double overhead_ns() const { return overhead_ns_; }
  // The CPU time charged to the stretches of every closed window: it never
  // falls (the monitor's counter), and misses the open window's (a window
  // closes at the thread's next rest, or at the first stretch end
  // kWindowNs after it opened).
  uint64_t net_ns() const { return static_cast<uint64_t>(charged_ns_); }
  // Windows closed, and the time their threads spent off the CPU between
  // their ends (wall - CPU time, summed over windows that lost the CPU).
  uint64_t windows() const { return windows_; }
  uint64_t off_cpu_ns() const { return off_cpu_ns_; }

  // A window's charge: `stretch_ns` of its stretches' wall time, its ends
  // `wall_ns` apart, the thread's CPU time between them `cpu_ns`.
  static double charge(double stretch_ns, int64_t cpu_ns, int64_t wall_ns);

 private:
  void open();
  void close();
  // The open window's stretches less the clock's share in each, in ns.
  double window_net_ns() const;

  Clocks clocks_;
  bool open_ = false;
  int64_t anchor_wall_ns_ = 0;  // the open window's ends: where it opened
  int64_t anchor_cpu_ns_ = 0;
  int64_t started_ns_ = 0;  // the current stretch's start (monotonic)
  uint64_t window_ns_ = 0;  // the open window's stretches, wall time
  uint64_t window_stretches_ = 0;
  int64_t loop_ns_ = 0;
  double charged_ns_ = 0;
  uint64_t stretches_ = 0;
  uint64_t windows_ = 0;
  uint64_t off_cpu_ns_ = 0;
  double overhead_ns_ = 0;
};

}  // namespace evb
