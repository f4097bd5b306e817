#include "bootstrap/socket_util.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace evb::boot {

void split_host_port(const std::string& text, const std::string& what, std::string* host,
                     int* port) {
  auto bad = [&](const char* why) {
    return ConfigError(what + "=\"" + text + "\": " + why + " (expected host:port)");
  };
  std::string h, p;
  if (!text.empty() && text[0] == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      throw bad("malformed [address]:port");
    h = text.substr(1, close - 1);
    p = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string::npos) throw bad("no port");
    h = text.substr(0, colon);
    p = text.substr(colon + 1);
  }
  if (h.empty()) throw bad("empty host");
  if (p.empty() || p.find_first_not_of("0123456789") != std::string::npos || p.size() > 5)
    throw bad("port is not a number");
  int v = std::stoi(p);
  if (v < 1 || v > 65535) throw bad("port out of range 1..65535");
  *host = h;
  *port = v;
}

namespace {

struct AddrList {
  addrinfo* head = nullptr;
  ~AddrList() {
    if (head) freeaddrinfo(head);
  }
};

void resolve(const std::string& host, int port, bool passive, AddrList* out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &out->head);
  if (rc != 0) throw Error("bootstrap: cannot resolve \"" + host + "\": " + gai_strerror(rc));
}

std::string errno_text(int e) {
  return std::strerror(e);
}

}  // namespace

Fd listen_tcp(const std::string& host, int port, int* bound_port) {
  AddrList addrs;
  resolve(host, port, true, &addrs);
  std::string last = "no address";
  for (addrinfo* a = addrs.head; a; a = a->ai_next) {
    Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd.valid()) {
      last = errno_text(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd.get(), SOMAXCONN) != 0) {
      last = errno_text(errno);
      continue;
    }
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len);
    *bound_port = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                           : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    return fd;
  }
  throw Error("bootstrap: cannot listen on " + host + ":" + std::to_string(port) + ": " + last);
}

Fd try_connect_tcp(const std::string& host, int port, int* err) {
  AddrList addrs;
  resolve(host, port, false, &addrs);
  *err = 0;
  for (addrinfo* a = addrs.head; a; a = a->ai_next) {
    Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd.valid()) {
      *err = errno;
      continue;
    }
    if (::connect(fd.get(), a->ai_addr, a->ai_addrlen) == 0) {
      int one = 1;
      ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    *err = errno;
  }
  return Fd();
}

void enable_keepalive(int fd) {
  int one = 1, idle = 60, intvl = 10, cnt = 6;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}

void set_nonblocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

bool send_all(int fd, const char* data, size_t n, std::string* why) {
  while (n > 0) {
    ssize_t k = ::send(fd, data, n, MSG_NOSIGNAL);
    if (k < 0) {
      if (errno == EINTR) continue;
      *why = errno_text(errno);
      return false;
    }
    data += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

int recv_exact(int fd, char* data, size_t n, Clock::time_point deadline, std::string* why) {
  while (n > 0) {
    int timeout_ms = -1;
    if (deadline != Clock::time_point::max()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return -1;
      timeout_ms = static_cast<int>(std::min<long long>(left.count() + 1, 1 << 30));
    }
    pollfd p{fd, POLLIN, 0};
    int rc = ::poll(&p, 1, timeout_ms);
    if (rc < 0 && errno == EINTR) continue;
    if (rc == 0) continue;  // re-check the deadline
    ssize_t k = ::recv(fd, data, n, 0);
    if (k < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      *why = errno_text(errno);
      return 0;
    }
    if (k == 0) {
      *why = "connection closed";
      return 0;
    }
    data += k;
    n -= static_cast<size_t>(k);
  }
  return 1;
}

std::string peer_address(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "?";
  char host[NI_MAXHOST], serv[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<sockaddr*>(&ss), len, host, sizeof host, serv, sizeof serv,
                  NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return "?";
  return std::string(host) + ":" + serv;
}

std::string local_hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace evb::boot
