#pragma once
// The tcp driver's run-time parameters (driver_options.*): one table of
// KeySpecs for validation and docs, and the parsed values.
#include <chrono>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"
#include "drivers/tcp/tcp_connection.hpp"
#include "drivers/tcp/tcp_socket.hpp"

namespace evb::tcp {

struct TcpOptions {
  std::string bind = "auto";  // "auto", an IPv4 address or a host name
  int port = 0;               // 0 = ephemeral
  SocketOptions socket;       // sndbuf, rcvbuf, nodelay
  std::chrono::milliseconds connect_timeout{30000};
  std::chrono::milliseconds shutdown_timeout{10000};
  UnexpectedLimits unexpected;  // messages buffered before their receive is posted
  ConnectionLimits limits;      // not user options (tests shrink max_io)
};

const std::vector<KeySpec>& tcp_option_specs();

// Reads config.driver_options (keys as in tcp_option_specs()); throws
// ConfigError naming the key on a bad value. `config` may be null (defaults).
TcpOptions parse_tcp_options(const Config* config);

}  // namespace evb::tcp
