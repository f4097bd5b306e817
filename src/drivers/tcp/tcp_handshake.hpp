#pragma once
// Connection setup: one connection per peer pair, established and checked
// before any data flows.
//
// The lower rank connects to the higher one and sends a hello (magic,
// protocol version, run id, both ranks); the acceptor checks it and answers
// accept or reject. Anything else that reaches the listener (a stray client,
// another run, garbage) is refused, logged to stderr and closed, and setup
// keeps waiting for the real peers until the timeout.
#include <chrono>
#include <string>
#include <vector>

#include "drivers/api/driver.hpp"
#include "drivers/tcp/tcp_socket.hpp"

namespace evb::tcp {

struct SetupParams {
  int rank = 0;
  uint64_t run_id = 0;
  std::vector<std::string> addresses;  // by rank
  std::vector<PeerId> peers;
  SocketOptions socket;
  std::chrono::milliseconds timeout{30000};
  std::chrono::milliseconds hello_timeout{5000};  // an accepted socket must say hello by then
};

// Returns one connected, non-blocking socket per peer (indexed by rank,
// invalid for non-peers). Blocks; throws PeerError naming every rank still
// missing when `timeout` passes.
std::vector<Fd> establish_connections(int listener_fd, const SetupParams& params);

}  // namespace evb::tcp
