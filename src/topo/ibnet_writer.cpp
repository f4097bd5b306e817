// The platform's cabling as ibnetdiscover text (see ibnet_writer.hpp).
#include "topo/ibnet_writer.hpp"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/error.hpp"

namespace evb::topo {
namespace {

// "4xEDR" for a link rate in bit/s: the width x lane speed whose data rate
// (as fabric_dump.cpp counts it) equals the rate.
std::string width_speed(const Platform& p, const Link& l) {
  static const struct {
    const char* name;
    double rate;
  } kSpeeds[] = {{"SDR", 2e9},       {"DDR", 4e9},  {"QDR", 8e9},  {"FDR10", 10e9},
                 {"FDR", 13.6364e9}, {"EDR", 25e9}, {"HDR", 50e9}, {"NDR", 100e9}};
  for (int width : {4, 1, 8, 12, 2})
    for (const auto& s : kSpeeds)
      if (std::fabs(width * s.rate - l.bandwidth) <= 1e-6 * l.bandwidth)
        return std::to_string(width) + "x" + s.name;
  throw ConfigError(p.source + ": link " + p.link_name(static_cast<int>(&l - p.links.data())) +
                    ": " + std::to_string(l.bandwidth / 1e9) +
                    " Gbit/s is no InfiniBand width x speed (e.g. 100Gbit/s = 4xEDR)");
}

std::string node_id(const Platform& p, int node) {
  char buf[32];
  const bool sw = p.nodes[node].kind == NodeKind::switch_node;
  std::snprintf(buf, sizeof buf, "%c-%016x", sw ? 'S' : 'H', (sw ? 0x200000 : 0x100000) + node);
  return buf;
}

}  // namespace

std::string ibnetdiscover_text(const Platform& p) {
  std::ostringstream out;
  out << "# " << p.name << ": cabling written by evbench topo --write-ibnetdiscover\n"
      << "# (ibnetdiscover topology format; ibsim net file)\n\n";
  for (int h = 0; h < p.host_count(); ++h) {
    const Node& n = p.host(h);
    const int node = p.hosts[h];
    out << "Ca\t1 \"" << node_id(p, node) << "\"\t\t# \"" << n.name << "\"\n";
    if (n.uplink >= 0) {
      const Link& l = p.links[n.uplink];
      out << "[1]\t\"" << node_id(p, l.to) << "\"[" << l.to_port << "]\t\t# lid 0 lmc 0 \""
          << p.nodes[l.to].name << "\" lid 0 " << width_speed(p, l) << "\n";
    }
    out << "\n";
  }
  for (int node : p.switches) {
    const Node& n = p.nodes[node];
    int ports = 0;
    for (size_t port = 0; port < n.port_link.size(); ++port)
      if (n.port_link[port] >= 0) ports = static_cast<int>(port);
    out << "Switch\t" << ports << " \"" << node_id(p, node) << "\"\t\t# \"" << n.name
        << "\" base port 0 lid 0 lmc 0\n";
    for (int port = 1; port <= ports; ++port) {
      if (n.port_link[port] < 0) continue;
      const Link& l = p.links[n.port_link[port]];
      out << "[" << port << "]\t\"" << node_id(p, l.to) << "\"[" << l.to_port << "]\t\t# \""
          << p.nodes[l.to].name << "\" lid 0 " << width_speed(p, l) << "\n";
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace evb::topo
