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

int exit_code_for(const std::exception& e) {
  if (dynamic_cast<const ConfigError*>(&e) || dynamic_cast<const UsageError*>(&e))
    return kExitUsage;
  return kExitRuntime;
}

int run_worker(Bootstrap& b, const WorkerFn& worker) noexcept {
  try {
    return worker(b);
  } catch (const std::exception& e) {
    log_line("rank " + std::to_string(b.rank()) + ": " + e.what());
    b.abort(e.what());
    return exit_code_for(e);
  } catch (...) {
    log_line("rank " + std::to_string(b.rank()) + ": unknown exception");
    b.abort("unknown exception");
    return kExitRuntime;
  }
}

long long setup_timeout_ms(const Config& config) {
  return static_cast<long long>(std::max(config.peer_timeout_s, 60.0) * 1000.0);
}

}  // namespace evb::boot
