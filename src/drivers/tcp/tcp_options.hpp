#pragma once
// The tcp driver's run-time parameters (driver_options.*): the KeySpecs for
// validation and docs, and the struct the same table fills.
#include <chrono>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"
#include "drivers/common/chassis_options.hpp"
#include "drivers/tcp/tcp_connection.hpp"
#include "drivers/tcp/tcp_socket.hpp"

namespace evb::tcp {

// Filled by parse_tcp_options(): the option table (tcp_options.cpp) holds
// every default; a TcpOptions{} does not (parse_tcp_options(nullptr) does).
struct TcpOptions : ChassisOptions {
  std::string bind;             // "auto", an IPv4 address or a host name
  int port = 0;                 // 0 = ephemeral
  SocketOptions socket;         // sndbuf, rcvbuf, nodelay
  UnexpectedLimits unexpected;  // messages buffered before their receive is posted
  ConnectionLimits limits;      // rcvlowat; the rest are not user options (tests shrink max_io)
};

const std::vector<KeySpec>& tcp_option_specs();

// The defaults, then config.driver_options (keys as in tcp_option_specs());
// throws ConfigError naming the key on a bad value. `config` may be null.
TcpOptions parse_tcp_options(const Config* config);

}  // namespace evb::tcp
