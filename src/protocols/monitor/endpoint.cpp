#include "protocols/monitor/endpoint.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>

#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "core/secret.hpp"

namespace evb {
namespace {

std::string trimmed(std::string s) {
  const auto not_space = [](unsigned char ch) { return !std::isspace(ch); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

}  // namespace

std::string monitor_token(const Config& c) {
  const std::string& path = c.monitor.token_file;
  if (path.empty()) return random_hex(16);
  std::ifstream in(path);
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    std::string token = trimmed(text.str());
    if (token.size() < 16)
      throw Error("monitor.token_file: " + path +
                  " holds no usable token (at least 16 characters on one line)");
    return token;
  }
  std::string token = random_hex(16);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("monitor.token_file: cannot create " + path);
  const std::string line = token + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  if (!ok) throw Error("monitor.token_file: cannot write " + path);
  return token;
}

MonitorEndpoint open_monitor(const Config& c, ControlLimits limits) {
  MonitorEndpoint m;
  m.state = std::make_unique<MonitorState>(to_yaml(c), std::move(limits));
  if (c.monitor.port == 0) return m;
  m.server = std::make_unique<MonitorServer>(
      *m.state, c.monitor.bind, static_cast<uint16_t>(c.monitor.port), monitor_token(c));
  // Bound to every address: name this host, which a browser can open.
  std::string url = m.server->url();
  for (const std::string any : {"//0.0.0.0:", "//[::]:"}) {
    const size_t at = url.find(any);
    char host[256] = {};
    if (at != std::string::npos && ::gethostname(host, sizeof host - 1) == 0 && host[0])
      url.replace(at, any.size(), "//" + std::string(host) + ":");
  }
  std::fprintf(stderr, "# monitor: %s\n", url.c_str());
  std::fflush(stderr);
  return m;
}

}  // namespace evb
