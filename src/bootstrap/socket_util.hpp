#pragma once
// Small POSIX socket helpers shared by the rendezvous server and client.
//
// The helpers throw evb::Error
// with the address and errno text; they never raise SIGPIPE.
#include <chrono>
#include <string>

#include "core/fd.hpp"

namespace evb::boot {

using Fd = evb::Fd;

using Clock = std::chrono::steady_clock;

// "host:port" -> host, port. Accepts "[v6addr]:port". Throws ConfigError
// naming `what` (e.g. the environment variable) on malformed input.
void split_host_port(const std::string& text, const std::string& what, std::string* host,
                     int* port);

// Listening TCP socket on host:port (port 0 = any); *bound_port gets the port.
Fd listen_tcp(const std::string& host, int port, int* bound_port);

// One connection attempt (blocking). Returns an invalid Fd with *err set when
// the peer refused or is unreachable (worth retrying); throws on bad addresses.
Fd try_connect_tcp(const std::string& host, int port, int* err);

// Keepalive so a vanished host is noticed even when no collective is running.
void enable_keepalive(int fd);
void set_nonblocking(int fd);

// Blocking helpers; return false on EOF/connection error (errno text in *why).
bool send_all(int fd, const char* data, size_t n, std::string* why);
// Waits at most until `deadline` (Clock::time_point::max() = forever).
// Returns 1 = data complete, 0 = EOF/error (*why), -1 = timeout.
int recv_exact(int fd, char* data, size_t n, Clock::time_point deadline, std::string* why);

// "127.0.0.1:41234" for the remote end of a connected socket.
std::string peer_address(int fd);
std::string local_hostname();

}  // namespace evb::boot
