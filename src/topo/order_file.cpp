// Rank order files: one host name per line.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "topo/platform_loader.hpp"

namespace evb::topo {

std::vector<int> parse_order(const Platform& platform, const std::string& text,
                             const std::string& name) {
  std::vector<int> order;
  std::set<int> seen;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    line = line.substr(0, line.find('#'));
    const auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    const auto e = line.find_last_not_of(" \t\r");
    const std::string host = line.substr(b, e - b + 1);
    const std::string at = name + ":" + std::to_string(line_no) + ": ";
    if (host.find_first_of(" \t") != std::string::npos)
      throw ConfigError(at + "expected one host name per line, got '" + host + "'");
    const int h = platform.find_host(host);
    if (h < 0)
      throw ConfigError(at + "host '" + host + "' is not in the platform " + platform.name);
    if (!seen.insert(h).second) throw ConfigError(at + "host '" + host + "' is listed twice");
    order.push_back(h);
  }
  if (order.empty()) throw ConfigError(name + ": the order file names no hosts");
  return order;
}

std::vector<int> load_order(const Platform& platform, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read the rank order: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_order(platform, text.str(), path);
}

}  // namespace evb::topo
