#pragma once
// Monotonic time in nanoseconds and seconds (CLOCK_MONOTONIC). Called as
// clock_gettime so that the SMPI build (smpicxx force-includes a header that
// maps it to the simulated clock) measures simulated time with the same code;
// under the credit model (core/sim_context.hpp) the simulation's virtual clock
// answers instead.
#include <time.h>

#include <cstdint>

#include "core/sim_context.hpp"

namespace evb {

inline int64_t now_ns() {
  if (const SimContext* sim = sim_context()) return sim->now_ns();
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
inline double ns_to_s(int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}
inline int64_t s_to_ns(double s) {
  return static_cast<int64_t>(s * 1e9);
}

}  // namespace evb
