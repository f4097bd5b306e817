#pragma once
// The monitor's endpoint on the EVM's rank: its token (from
// monitor.token_file, or fresh), the shared state and, with monitor.port,
// the HTTP server, started before the data phase with its URL printed on
// stderr. What run-time control may set is the protocol's to say
// (ControlLimits; the event builders': protocols/event_building/control_limits.hpp).
#include <memory>
#include <string>

#include "core/config.hpp"
#include "protocols/monitor/control.hpp"
#include "protocols/monitor/http_server.hpp"
#include "protocols/monitor/monitor_state.hpp"

namespace evb {

// monitor.token_file's token (read when the file exists, else created with a
// fresh one, mode 0600), or a fresh random one. Throws evb::Error naming the
// file when it cannot be read or written, or holds no usable token.
std::string monitor_token(const Config& c);

struct MonitorEndpoint {
  std::unique_ptr<MonitorState> state;
  std::unique_ptr<MonitorServer> server;
};

// The state (with the resolved configuration and `limits`) and, with
// monitor.port set, the server, started, its URL printed on stderr as
// `# monitor: <url>`. Without monitor.port the state alone takes the
// `control:` list's changes.
MonitorEndpoint open_monitor(const Config& c, ControlLimits limits);

}  // namespace evb
