// What the EVM's CPU meter reads for a stretch of known work (docs/METRICS.md
// "Cost"): the same stretch timed three ways, N times each, per stretch:
//   truth      the stretches and the gaps between them with no clock read
//              inside, less the gaps alone (thread CPU time, read at the ends)
//   old meter  the thread CPU clock read around every stretch, less the
//              shortest of 256 empty stretches (the meter before windows)
//   CpuMeter   the meter: monotonic time per stretch, thread CPU time per
//              window (src/protocols/common/cpu_meter.hpp)
// The stretch is WORK loop iterations over a 4 MiB buffer, plus a system
// call (getppid) with --syscall, as a handler that sends; the gaps are 1000
// iterations (polling, other agents). Not a test: the figures depend on
// the machine and its load (printed), and preemption makes each run differ.
//
//   build/bin/evbench_cpu_meter_accuracy [WORK [REPEATS]] [--syscall]
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "protocols/common/cpu_meter.hpp"

namespace {

using evb::CpuMeter;

std::vector<char> g_buffer(4 << 20, 1);  // a power of 2
uint64_t g_sink = 0;

__attribute__((noinline)) void work(int n, bool sys) {
  uint64_t s = 0;
  for (int i = 0; i < n; ++i) {
    s += static_cast<uint64_t>(g_buffer[(static_cast<size_t>(i) * 4099) & (g_buffer.size() - 1)]) *
         i;
    asm volatile("" : "+r"(s));
  }
  if (sys) s += static_cast<uint64_t>(syscall(SYS_getppid));
  g_sink += s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty()      ? 0
         : v.size() % 2 ? v[v.size() / 2]
                        : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

void load_average(const char* when) {
  double l[3] = {0, 0, 0};
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]) != 3) l[0] = l[1] = l[2] = 0;
    std::fclose(f);
  }
  std::printf("# load average %.2f %.2f %.2f %s\n", l[0], l[1], l[2], when);
}

}  // namespace

int main(int argc, char** argv) {
  int n = 100;
  int repeats = 3;
  bool sys = false;
  int pos = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--syscall") == 0)
      sys = true;
    else if (pos++ == 0)
      n = std::atoi(argv[i]);
    else
      repeats = std::atoi(argv[i]);
  }
  constexpr int kStretches = 100000;
  constexpr int kGap = 1000;
  std::printf("# cpu_meter_accuracy: %d stretches of %d iterations%s, gaps of %d\n", kStretches, n,
              sys ? " + getppid" : "", kGap);
  load_average("at start");
  std::printf("# ns per stretch: %8s %10s %9s %8s\n", "truth", "old meter", "CpuMeter", "windows");
  std::vector<double> truth, old_meter, meter;
  for (int r = 0; r < repeats; ++r) {
    int64_t a = CpuMeter::thread_cpu_ns();
    for (int i = 0; i < kStretches; ++i) {
      work(n, sys);
      work(kGap, false);
    }
    const int64_t both = CpuMeter::thread_cpu_ns() - a;
    a = CpuMeter::thread_cpu_ns();
    for (int i = 0; i < kStretches; ++i) work(kGap, false);
    const int64_t gaps = CpuMeter::thread_cpu_ns() - a;

    int64_t least = INT64_MAX;
    for (int i = 0; i < 256; ++i) {
      const int64_t x = CpuMeter::thread_cpu_ns();
      least = std::min(least, CpuMeter::thread_cpu_ns() - x);
    }
    int64_t raw = 0;
    for (int i = 0; i < kStretches; ++i) {
      const int64_t x = CpuMeter::thread_cpu_ns();
      work(n, sys);
      raw += CpuMeter::thread_cpu_ns() - x;
      work(kGap, false);
    }
    CpuMeter m;
    for (int i = 0; i < kStretches; ++i) {
      m.begin();
      work(n, sys);
      m.end();
      work(kGap, false);
    }
    m.rest();
    truth.push_back(static_cast<double>(both - gaps) / kStretches);
    old_meter.push_back(static_cast<double>(raw - least * kStretches) / kStretches);
    meter.push_back(static_cast<double>(m.net_ns()) / kStretches);
    std::printf("  %23.1f %10.1f %9.1f %8llu\n", truth.back(), old_meter.back(), meter.back(),
                static_cast<unsigned long long>(m.windows()));
  }
  std::printf("# median %15.1f %10.1f %9.1f\n", median(truth), median(old_meter), median(meter));
  load_average("at the end");
  return g_sink == 42 ? 1 : 0;
}
