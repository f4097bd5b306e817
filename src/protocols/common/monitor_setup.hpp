#pragma once
// The monitor's endpoint on the EVM's rank (monitor.port): its token (from
// monitor.token_file, or fresh), the limits of run-time control this run
// allows, the shared state and the HTTP server, started before the data
// phase with its URL printed on stderr.
#include <memory>
#include <string>

#include "core/config.hpp"
#include "monitor/control.hpp"
#include "monitor/http_server.hpp"
#include "monitor/monitor_state.hpp"

namespace evb {

// monitor.token_file's token (read when the file exists, else created with a
// fresh one, mode 0600), or a fresh random one. Throws evb::Error naming the
// file when it cannot be read or written, or holds no usable token.
std::string monitor_token(const Config& c);

// What POST /control may set in this run: parallel 1..nodes (PULL-style
// builders only: `pulls`), credits 1..the slots allocated, fu.processing_time
// up to peer_timeout (or its value at start, if larger: a longer FU time
// would read as a silent peer), each RU's factor up to where its fragments
// reach the largest size its ring and the BU windows hold.
ControlLimits control_limits(const Config& c, bool pulls);

struct MonitorEndpoint {
  std::unique_ptr<MonitorState> state;
  std::unique_ptr<MonitorServer> server;
};

// Starts the endpoint (state + server) and prints `# monitor: <url>`.
MonitorEndpoint start_monitor(const Config& c, bool pulls);

}  // namespace evb
