#include "drivers/tcp/tcp_socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace evb::tcp {

std::string errno_text(int err) {
  const char* name = strerrordesc_np(err);
  const char* abbrev = strerrorname_np(err);
  std::string out = name ? name : "unknown error";
  if (abbrev) out += std::string(" (") + abbrev + ")";
  return out;
}

static void check(int rc, const char* what) {
  if (rc < 0) throw Error(std::string("tcp: ") + what + ": " + errno_text(errno));
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  check(flags, "fcntl(F_GETFL)");
  check(::fcntl(fd, F_SETFL, flags | O_NONBLOCK), "fcntl(O_NONBLOCK)");
}

static void set_buffers(int fd, const SocketOptions& opts) {
  if (opts.sndbuf > 0) {
    int v = static_cast<int>(opts.sndbuf);
    check(::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v), "setsockopt(SO_SNDBUF)");
  }
  if (opts.rcvbuf > 0) {
    int v = static_cast<int>(opts.rcvbuf);
    check(::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v), "setsockopt(SO_RCVBUF)");
  }
}

void configure_socket(int fd, const SocketOptions& opts) {
  set_nonblocking(fd);
  set_buffers(fd, opts);
  int one = opts.nodelay ? 1 : 0;
  check(::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one), "setsockopt(TCP_NODELAY)");
}

sockaddr_in resolve_host(const std::string& host, int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) == 1) return addr;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0 || !res) {
    throw Error("tcp: cannot resolve host '" + host + "': " + ::gai_strerror(rc));
  }
  addr.sin_addr = reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr;
  ::freeaddrinfo(res);
  return addr;
}

sockaddr_in resolve_endpoint(const std::string& address) {
  const std::string endpoint = address.substr(0, address.find('#'));  // without the run secret
  auto colon = endpoint.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == endpoint.size()) {
    throw Error("tcp: bad peer address '" + endpoint + "' (expected host:port)");
  }
  int port = 0;
  try {
    port = std::stoi(endpoint.substr(colon + 1));
  } catch (const std::exception&) {
    port = -1;
  }
  if (port <= 0 || port > 65535) throw Error("tcp: bad port in peer address '" + endpoint + "'");
  return resolve_host(endpoint.substr(0, colon), port);
}

std::string format_endpoint(const sockaddr_in& addr) {
  char buf[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &addr.sin_addr, buf, sizeof buf);
  return std::string(buf) + ":" + std::to_string(ntohs(addr.sin_port));
}

std::string peer_endpoint(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "?";
  return format_endpoint(addr);
}

std::string primary_host_address() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "127.0.0.1";
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(name, nullptr, &hints, &res) != 0 || !res) return name;
  std::string first;
  std::string chosen;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    sockaddr_in a = *reinterpret_cast<sockaddr_in*>(ai->ai_addr);
    char buf[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
    if (first.empty()) first = buf;
    if ((ntohl(a.sin_addr.s_addr) >> 24) != 127) {
      chosen = buf;
      break;
    }
  }
  ::freeaddrinfo(res);
  return !chosen.empty() ? chosen : (!first.empty() ? first : std::string(name));
}

Fd make_listener(const sockaddr_in& addr, const SocketOptions& opts, int peers) {
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  check(fd.get(), "socket()");
  int one = 1;
  check(::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one),
        "setsockopt(SO_REUSEADDR)");
  set_buffers(fd.get(), opts);
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    throw Error("tcp: cannot listen on " + format_endpoint(addr) + ": " + errno_text(errno));
  }
  check(::listen(fd.get(), std::max(SOMAXCONN, peers)), "listen()");
  return fd;
}

int local_port(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  check(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), "getsockname()");
  return ntohs(addr.sin_port);
}

}  // namespace evb::tcp
