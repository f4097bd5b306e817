#pragma once
// Monotonic time in nanoseconds and seconds (steady_clock).
#include <chrono>
#include <cstdint>

namespace evb {

inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline double ns_to_s(int64_t ns) {
  return static_cast<double>(ns) * 1e-9;
}
inline int64_t s_to_ns(double s) {
  return static_cast<int64_t>(s * 1e9);
}

}  // namespace evb
