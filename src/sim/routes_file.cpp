#include "sim/routes_file.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace evb::sim {
namespace {

constexpr const char* kMagic = "evbench-simroutes";
constexpr int kVersion = 1;

}  // namespace

SimPlatform read_routes_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the routes file");
  SimPlatform p;
  std::string line;
  int lineno = 0;
  auto fail = [&](const std::string& why) {
    throw std::runtime_error(path + ":" + std::to_string(lineno) + ": " + why);
  };
  auto index = [&](std::istringstream& s, size_t limit, const char* what) {
    long v = -1;
    if (!(s >> v) || v < 0 || static_cast<size_t>(v) >= limit)
      fail(std::string("bad ") + what + " index (have " + std::to_string(limit) + ")");
    return static_cast<int>(v);
  };
  bool header = false;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    std::string kind;
    s >> kind;
    if (!header) {
      int version = 0;
      if (kind != kMagic || !(s >> version) || version != kVersion)
        fail(std::string("not a routes file (expected '") + kMagic + " " +
             std::to_string(kVersion) + "')");
      header = true;
    } else if (kind == "host") {
      std::string name;
      if (!(s >> name)) fail("host without a name");
      p.hosts.push_back(name);
    } else if (kind == "link") {
      SimLink l;
      if (!(s >> l.name >> l.bandwidth >> l.latency) || l.bandwidth <= 0 || l.latency < 0)
        fail("link needs NAME BANDWIDTH(>0) LATENCY(>=0)");
      p.links.push_back(l);
    } else if (kind == "route") {
      SimRoute r;
      r.src = index(s, p.hosts.size(), "host");
      r.dst = index(s, p.hosts.size(), "host");
      while (!(s >> std::ws).eof()) r.links.push_back(index(s, p.links.size(), "link"));
      p.routes.push_back(std::move(r));
    } else {
      fail("unknown record '" + kind + "'");
    }
  }
  if (!header) throw std::runtime_error(path + ": empty routes file");
  return p;
}

void write_routes_file(const SimPlatform& p, const std::string& path) {
  std::ofstream out(path);
  out << kMagic << ' ' << kVersion << '\n';
  for (const auto& h : p.hosts) out << "host " << h << '\n';
  out.precision(17);
  for (const auto& l : p.links)
    out << "link " << l.name << ' ' << l.bandwidth << ' ' << l.latency << '\n';
  for (const auto& r : p.routes) {
    out << "route " << r.src << ' ' << r.dst;
    for (int l : r.links) out << ' ' << l;
    out << '\n';
  }
  if (!out.flush()) throw std::runtime_error(path + ": cannot write the routes file");
}

}  // namespace evb::sim
