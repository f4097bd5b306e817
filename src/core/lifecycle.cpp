#include "core/lifecycle.hpp"

#include <time.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace evb {

namespace {

double seconds(std::chrono::steady_clock::duration d) {
  const double s = std::chrono::duration<double>(d).count();
  return s > 0 ? s : 0;
}

}  // namespace

Lifecycle LifecycleClock::phases() const {
  Lifecycle l;
  l.join_s = seconds(joined_ - launched_);
  l.connect_s = seconds(connected_ - joined_);
  l.setup_s = seconds(ready_ - connected_);
  l.teardown_s = seconds(shut_down_ - data_end_);
  return l;
}

std::chrono::steady_clock::time_point process_start() {
  const auto now = std::chrono::steady_clock::now();
  std::ifstream in("/proc/self/stat");
  std::string text;
  std::getline(in, text);
  // Field 22 (starttime, clock ticks since boot) counts from after the
  // command name's closing parenthesis (field 2, which may hold spaces).
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return now;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  for (int i = 3; i < 22 && fields >> field; ++i) {
  }
  unsigned long long ticks = 0;
  timespec boot{};
  const long hz = ::sysconf(_SC_CLK_TCK);
  if (!(fields >> ticks) || hz <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &boot) != 0) return now;
  const double since_boot = static_cast<double>(boot.tv_sec) + boot.tv_nsec * 1e-9;
  const double age = since_boot - static_cast<double>(ticks) / static_cast<double>(hz);
  if (age < 0 || age > 86400.0 * 365) return now;
  return now - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(age));
}

}  // namespace evb
