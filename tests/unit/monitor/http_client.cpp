// The tests' HTTP client (http_client.hpp).
#include "http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cctype>
#include <stdexcept>

namespace evb::test {
namespace {

// A connected socket to 127.0.0.1:port, or -1.
int connect_loopback(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  timeval timeout{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

HttpResponse parse(const std::string& raw) {
  HttpResponse r;
  const size_t end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/1.", 0) != 0 || end == std::string::npos) return r;
  r.status = std::stoi(raw.substr(9, 3));
  size_t line = raw.find("\r\n") + 2;
  while (line < end) {
    const size_t next = raw.find("\r\n", line);
    const std::string h = raw.substr(line, next - line);
    const size_t colon = h.find(':');
    if (colon != std::string::npos) {
      size_t v = colon + 1;
      while (v < h.size() && h[v] == ' ') ++v;
      r.headers[lower(h.substr(0, colon))] = h.substr(v);
    }
    line = next + 2;
  }
  r.body = raw.substr(end + 4);
  return r;
}

}  // namespace

HttpResponse send_raw(uint16_t port, const std::string& raw) {
  const int fd = connect_loopback(port);
  if (fd < 0) throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  size_t sent = 0;
  while (sent < raw.size()) {
    const ssize_t n = ::send(fd, raw.data() + sent, raw.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer and close before reading it all
    sent += static_cast<size_t>(n);
  }
  std::string in;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;  // closed, reset or the safety timeout
    in.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return parse(in);
}

HttpResponse request(uint16_t port, const std::string& method, const std::string& target,
                     const std::vector<std::pair<std::string, std::string>>& headers,
                     const std::string& body) {
  std::string raw = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const auto& [name, value] : headers) raw += name + ": " + value + "\r\n";
  if (!body.empty()) raw += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return send_raw(port, raw + "\r\n" + body);
}

bool can_connect(uint16_t port) {
  const int fd = connect_loopback(port);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

}  // namespace evb::test
