#include "bootstrap/rank_runner.hpp"

#include <algorithm>
#include <cstdio>

#include "core/error.hpp"

namespace evb::boot {

void log_line(const std::string& line) {
  std::string l = "evbench: " + line + "\n";
  std::fputs(l.c_str(), stderr);
  std::fflush(stderr);
}

std::string rank_message(int rank, const std::string& what) {
  const std::string prefix = "rank " + std::to_string(rank) + ": ";
  return what.rfind(prefix, 0) == 0 ? what : prefix + what;
}

int exit_code_for(const std::exception& e) {
  if (dynamic_cast<const ConfigError*>(&e) || dynamic_cast<const UsageError*>(&e))
    return kExitUsage;
  return kExitRuntime;
}

namespace {

// Abort first (the other ranks stop sooner), then report; never throws.
void relay(Bootstrap& b, const std::string& what, const FailureReport& report) noexcept {
  const std::string message = rank_message(b.rank(), what);
  b.abort(message);
  try {
    if (report)
      report(message);
    else
      log_line(message);
  } catch (...) {
  }
}

}  // namespace

int run_worker(Bootstrap& b, const WorkerFn& worker, const FailureReport& report) noexcept {
  try {
    return worker(b);
  } catch (const std::exception& e) {
    relay(b, e.what(), report);
    return exit_code_for(e);
  } catch (...) {
    relay(b, "unknown exception", report);
    return kExitRuntime;
  }
}

long long setup_timeout_ms(const Config& config) {
  return static_cast<long long>(std::max(config.peer_timeout_s, 60.0) * 1000.0);
}

}  // namespace evb::boot
