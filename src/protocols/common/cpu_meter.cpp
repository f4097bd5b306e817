#include "protocols/common/cpu_meter.hpp"

#include <time.h>

#include <algorithm>

namespace evb {

int64_t CpuMeter::thread_cpu_ns() {
  timespec ts{};
  // The C library's own clock_gettime, by name in parentheses: the SMPI
  // build's smpi_helpers.h turns clock_gettime(x, y) into a simulated call
  // that moves simulated time on, and a meter read per loop turn would then
  // slow the simulated run (sim_waitany-matches-polling).
  (clock_gettime)(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

CpuMeter::CpuMeter() {
  // The smallest of many empty stretches: a preemption or an interrupt only
  // ever lengthens one, and the clock counts in whole nanoseconds.
  int64_t least = INT64_MAX;
  for (int i = 0; i < 256; ++i) {
    const int64_t a = thread_cpu_ns();
    const int64_t b = thread_cpu_ns();
    least = std::min(least, b - a);
  }
  overhead_ns_ = static_cast<double>(std::max<int64_t>(least, 0));
}

uint64_t CpuMeter::net_ns() const {
  const double net = static_cast<double>(raw_ns_) - overhead_ns_ * static_cast<double>(stretches_);
  return net > 0 ? static_cast<uint64_t>(net) : 0;
}

}  // namespace evb
