#pragma once
// A small blocking HTTP/1.1 client over POSIX sockets for the monitor's
// tests: one request per connection (Connection: close), read until the
// server closes. Timeouts (10 s) are only a safety net against a hung test.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace evb::test {

struct HttpResponse {
  int status = 0;                              // 0: no status line came back
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

// Sends `raw` (a complete request, as bytes) to 127.0.0.1:`port` and parses
// what comes back.
HttpResponse send_raw(uint16_t port, const std::string& raw);

// Builds and sends `method target` with `headers` and `body` (Content-Length
// added when the body is not empty).
HttpResponse request(uint16_t port, const std::string& method, const std::string& target,
                     const std::vector<std::pair<std::string, std::string>>& headers = {},
                     const std::string& body = "");

// Whether anything accepts a TCP connection on 127.0.0.1:`port`.
bool can_connect(uint16_t port);

}  // namespace evb::test
