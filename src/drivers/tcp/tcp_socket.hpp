#pragma once
// The few socket helpers the tcp driver needs
// (options, address parsing and formatting, listener). Setup helpers throw
// evb::Error with the failing call and errno text.
#include <netinet/in.h>

#include <cstddef>
#include <string>

#include "core/fd.hpp"

namespace evb::tcp {

using Fd = evb::Fd;

// Socket options applied to every data connection (0 = kernel default).
struct SocketOptions {
  size_t sndbuf = 0;
  size_t rcvbuf = 0;
  bool nodelay = true;
};

// Applies `opts` (buffers, TCP_NODELAY) and O_NONBLOCK; throws on failure.
void configure_socket(int fd, const SocketOptions& opts);
void set_nonblocking(int fd);

// "host:port" -> IPv4 socket address (host: dotted quad or resolvable name).
sockaddr_in resolve_endpoint(const std::string& endpoint);
sockaddr_in resolve_host(const std::string& host, int port);
// 127.0.0.1:4567
std::string format_endpoint(const sockaddr_in& addr);
// Address of the fd's remote end, or "?" when unknown.
std::string peer_endpoint(int fd);

// The first non-loopback IPv4 address of this host's name, else the name.
std::string primary_host_address();

// A non-blocking listening socket bound to `addr` (port 0: ephemeral);
// `opts` buffer sizes are set before listen() so accepted sockets inherit them.
// Its backlog holds `peers` simultaneous connects (at least SOMAXCONN; the
// kernel caps it at net.core.somaxconn).
Fd make_listener(const sockaddr_in& addr, const SocketOptions& opts, int peers);
int local_port(int fd);

// "Connection reset by peer (ECONNRESET)"-style text for an errno value.
std::string errno_text(int err);

}  // namespace evb::tcp
