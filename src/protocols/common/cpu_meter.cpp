#include "protocols/common/cpu_meter.hpp"

#include <time.h>

#include <algorithm>

namespace evb {
namespace {
int64_t read_clock(clockid_t id) {
  timespec ts{};
  // The C library's own clock_gettime, by name in parentheses: the SMPI
  // build's smpi_helpers.h turns clock_gettime(x, y) into a simulated call
  // that moves simulated time on, and a meter read per loop turn would then
  // slow the simulated run (sim_waitany-matches-polling).
  (clock_gettime)(id, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
}  // namespace

int64_t CpuMeter::thread_cpu_ns() {
  return read_clock(CLOCK_THREAD_CPUTIME_ID);
}

int64_t CpuMeter::wall_ns() {
  return read_clock(CLOCK_MONOTONIC);
}

CpuMeter::CpuMeter(Clocks clocks) : clocks_(clocks) {
  // The smallest of many empty stretches: a preemption or an interrupt only
  // ever lengthens one, and the clock counts in whole nanoseconds.
  int64_t least = INT64_MAX;
  for (int i = 0; i < 256; ++i) {
    const int64_t a = clocks_.wall();
    const int64_t b = clocks_.wall();
    least = std::min(least, b - a);
  }
  overhead_ns_ = static_cast<double>(std::max<int64_t>(least, 0));
}

double CpuMeter::charge(double stretch_ns, int64_t cpu_ns, int64_t wall_ns) {
  if (stretch_ns <= 0) return 0;
  if (wall_ns <= 0 || cpu_ns >= wall_ns) return stretch_ns;
  return stretch_ns * static_cast<double>(std::max<int64_t>(cpu_ns, 0)) /
         static_cast<double>(wall_ns);
}

void CpuMeter::open() {
  // Wall first, CPU last here and the other way round at close(): the CPU
  // interval lies inside the wall interval.
  anchor_wall_ns_ = clocks_.wall();
  anchor_cpu_ns_ = clocks_.cpu();
  open_ = true;
}

void CpuMeter::close() {
  const int64_t cpu = clocks_.cpu() - anchor_cpu_ns_;
  const int64_t wall = clocks_.wall() - anchor_wall_ns_;
  charged_ns_ += charge(window_net_ns(), cpu, wall);
  if (wall > cpu) off_cpu_ns_ += static_cast<uint64_t>(wall - cpu);
  ++windows_;
  window_ns_ = 0;
  window_stretches_ = 0;
  open_ = false;
}

double CpuMeter::window_net_ns() const {
  const double net =
      static_cast<double>(window_ns_) - overhead_ns_ * static_cast<double>(window_stretches_);
  return net > 0 ? net : 0;
}

}  // namespace evb
