#pragma once
// Runs the worker of one rank and turns exceptions into an exit code.
//
// Shared by the local (forked child) and env bootstraps: an exception from
// the worker is logged once ("evbench: rank 2: ..."), relayed to the other
// ranks through Bootstrap::abort(), and mapped to the documented exit code.
#include <exception>
#include <string>

#include "drivers/api/bootstrap.hpp"
#include "drivers/api/registry.hpp"

namespace evb::boot {

// Writes "evbench: <line>\n" to stderr in one call.
void log_line(const std::string& line);

// kExitUsage for ConfigError/UsageError, else kExitRuntime.
int exit_code_for(const std::exception& e);

// Calls worker(b); never throws.
int run_worker(Bootstrap& b, const WorkerFn& worker) noexcept;

// setup rounds wait at least a minute, or longer if the config says so.
long long setup_timeout_ms(const Config& config);

}  // namespace evb::boot
