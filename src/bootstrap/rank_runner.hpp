#pragma once
// Runs the worker of one rank and turns exceptions into an exit code.
//
// Shared by the local (forked child) and env bootstraps: an exception from
// the worker is relayed to the other ranks through Bootstrap::abort() first,
// then reported once ("evbench: rank 2: ...") by the bootstrap's reporter
// (stderr by default; the local launcher's children leave it to the
// launcher, which prints the first cause of a failed run once) and mapped
// to the documented exit code.
#include <exception>
#include <functional>
#include <string>

#include "drivers/api/bootstrap.hpp"
#include "drivers/api/registry.hpp"

namespace evb::boot {

// Writes "evbench: <line>\n" to stderr in one call.
void log_line(const std::string& line);

// "rank 2: <what>", unless `what` already starts with "rank 2: ".
std::string rank_message(int rank, const std::string& what);

// kExitUsage for ConfigError/UsageError, else kExitRuntime.
int exit_code_for(const std::exception& e);

// Receives a failed rank's message (already relayed by abort()).
using FailureReport = std::function<void(const std::string& message)>;

// Calls worker(b); never throws. A failure is relayed with b.abort(message),
// then handed to `report` (default: log_line).
int run_worker(Bootstrap& b, const WorkerFn& worker, const FailureReport& report = {}) noexcept;

// setup rounds wait at least a minute, or longer if the config says so.
long long setup_timeout_ms(const Config& config);

}  // namespace evb::boot
