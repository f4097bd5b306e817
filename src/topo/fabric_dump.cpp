// Reading a real fabric: ibnetdiscover's topology file and dump_lfts'
// per-switch linear forwarding tables.
//
// Topology file: blocks of "Switch N "S-GUID" # "DESC" ... lid L" or
// "Ca N "H-GUID" # "DESC"" followed by one line per cabled port:
// "[P](portguid) "PEER-ID"[PP](...) # ... lid L 4xEDR". Host names are the
// first word of the channel adapter's description; switch names its whole
// description. A host with several cabled ports uses the first. dump_lfts:
// "Unicast lids [...] of switch Lid L guid 0xG (...):" then
// "0xLID PORT : (...)" per destination LID.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "core/error.hpp"
#include "topo/platform_loader.hpp"

namespace evb::topo {
namespace {

std::string read_file(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read the " + what + ": " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "node2" < "node10": digit runs compare by value.
bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) &&
        std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      const std::string x = a.substr(i, ie - i), y = b.substr(j, je - j);
      const auto xs = x.find_first_not_of('0'), ys = y.find_first_not_of('0');
      const std::string xv = xs == std::string::npos ? "" : x.substr(xs);
      const std::string yv = ys == std::string::npos ? "" : y.substr(ys);
      if (xv.size() != yv.size()) return xv.size() < yv.size();
      if (xv != yv) return xv < yv;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

// Data rate of one lane, bit/s (after line encoding).
double lane_rate(const std::string& speed) {
  static const std::map<std::string, double> kRates = {
      {"SDR", 2e9},       {"DDR", 4e9},  {"QDR", 8e9},  {"FDR10", 10e9},
      {"FDR", 13.6364e9}, {"EDR", 25e9}, {"HDR", 50e9}, {"NDR", 100e9}};
  const auto it = kRates.find(speed);
  return it == kRates.end() ? 0 : it->second;
}

// A decimal or hexadecimal field of a dump line, bounded (ports, LIDs).
int field(const std::string& text, int base, int max, const std::string& at, const char* what) {
  if (text.empty() || text.size() > 8)
    throw ConfigError(at + ": " + what + " '" + text + "' is out of range");
  const long v = std::stol(text, nullptr, base);
  if (v > max)
    throw ConfigError(at + ": " + what + " " + text + " is out of range (max " +
                      std::to_string(max) + ")");
  return static_cast<int>(v);
}

struct DumpNode {
  bool is_switch = false;
  std::string id;    // "S-..." / "H-..."
  std::string desc;  // from the comment
  int lid = 0;
  int line = 0;
};

struct DumpPort {
  std::string node_id;
  int port = 0;
  std::string peer_id;
  int peer_port = 0;
  int lid = 0;      // Ca lines: the adapter's own LID
  double rate = 0;  // bit/s, 0 when not printed
  int line = 0;
};

}  // namespace

Platform read_fabric_text(const std::string& topology_text, const std::string& topology_name,
                          const std::string& lfts_text, const std::string& lfts_name,
                          double link_latency) {
  static const std::regex kNode(R"re(^(Switch|Ca)\s+(\d+)\s+"([^"]+)"\s*(#\s*"([^"]*)"(.*))?$)re");
  static const std::regex kPort(
      R"re(^\[(\d+)\](\([0-9a-fA-Fx]+\))?\s+"([^"]+)"\[(\d+)\](\([0-9a-fA-Fx]+\))?\s*(#(.*))?$)re");
  static const std::regex kLid(R"re(\blid\s+(\d+))re");
  static const std::regex kSpeed(R"re(\b(\d+)x([A-Z]+[0-9]*)\s*$)re");
  static const std::regex kRouter(R"re(^Rt\s+)re");

  std::map<std::string, DumpNode> nodes;
  std::vector<std::string> node_order;
  std::vector<DumpPort> ports;
  std::istringstream in(topology_text);
  std::string line, current;
  int line_no = 0;
  auto where = [&](int l) { return topology_name + ":" + std::to_string(l); };
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_match(line, m, kNode)) {
      DumpNode n;
      n.is_switch = m[1] == "Switch";
      n.id = m[3];
      n.desc = m[5];
      n.line = line_no;
      const std::string rest = m[6];
      std::smatch lm;
      if (n.is_switch && std::regex_search(rest, lm, kLid))
        n.lid = field(lm[1], 10, 0xFFFF, where(line_no), "LID");
      if (nodes.count(n.id))
        throw ConfigError(where(line_no) + ": node " + n.id + " appears twice");
      current = n.id;
      nodes[n.id] = n;
      node_order.push_back(n.id);
    } else if (std::regex_search(line, kRouter)) {
      current.clear();  // routers are not modelled; their ports are skipped
    } else if (!line.empty() && line[0] == '[') {
      if (!std::regex_match(line, m, kPort))
        throw ConfigError(where(line_no) +
                          ": cannot read this port line (expected [PORT] \"PEER\"[PORT] ...)");
      if (current.empty()) continue;
      DumpPort p;
      p.node_id = current;
      p.port = field(m[1], 10, 255, where(line_no), "port");
      p.peer_id = m[3];
      p.peer_port = field(m[4], 10, 255, where(line_no), "port");
      p.line = line_no;
      const std::string comment = m[7];
      std::smatch x;
      if (std::regex_search(comment, x, kLid))
        p.lid = field(x[1], 10, 0xFFFF, where(line_no), "LID");
      if (std::regex_search(comment, x, kSpeed))
        p.rate = field(x[1], 10, 64, where(line_no), "link width") * lane_rate(x[2]);
      ports.push_back(p);
    }
  }
  if (nodes.empty())
    throw ConfigError(topology_name + ": no Switch or Ca entries (is this ibnetdiscover output?)");

  Platform p;
  p.source = topology_name;
  p.name = topology_name;
  // Hosts: channel adapters with a cabled port, in natural name order.
  for (const auto& port : ports) {
    DumpNode& n = nodes[port.node_id];
    if (!n.is_switch && !n.lid && port.lid) n.lid = port.lid;
  }
  auto host_name = [&](const DumpNode& n) {
    const std::string d = n.desc.empty() ? n.id : n.desc;
    return d.substr(0, d.find(' '));
  };
  std::vector<std::string> cas;
  for (const auto& id : node_order)
    if (!nodes[id].is_switch) cas.push_back(id);
  std::stable_sort(cas.begin(), cas.end(), [&](const std::string& a, const std::string& b) {
    return natural_less(host_name(nodes[a]), host_name(nodes[b]));
  });
  std::map<std::string, int> index;  // dump id -> node index
  for (const auto& id : cas) {
    const std::string name = host_name(nodes[id]);
    if (p.find_node(name) >= 0)
      throw ConfigError(where(nodes[id].line) + ": host name '" + name + "' appears twice");
    index[id] = p.add_host(name);
  }
  for (const auto& id : node_order)
    if (nodes[id].is_switch) {
      const DumpNode& n = nodes[id];
      std::string name = n.desc.empty() ? n.id : n.desc;
      if (p.find_node(name) >= 0) name += " (" + n.id + ")";
      index[id] = p.add_switch(name, 0);
    }
  // Cables, once each (both ends list them; hosts' extra ports are dropped).
  std::map<std::pair<std::string, int>, bool> done;
  for (const auto& port : ports) {
    if (!nodes.count(port.peer_id)) continue;  // a router or unlisted node
    const auto self = std::pair{port.node_id, port.port};
    const auto peer = std::pair{port.peer_id, port.peer_port};
    if (done.count(self) || done.count(peer)) continue;
    done[self] = done[peer] = true;
    const int a = index[port.node_id], b = index[port.peer_id];
    if (p.nodes[a].kind == NodeKind::host && p.nodes[a].uplink != -1) continue;
    if (p.nodes[b].kind == NodeKind::host && p.nodes[b].uplink != -1) continue;
    if (p.nodes[a].kind == NodeKind::host && p.nodes[b].kind == NodeKind::host)
      throw ConfigError(where(port.line) + ": hosts cabled back to back are not modelled");
    p.connect(a, port.port, b, port.peer_port, port.rate > 0 ? port.rate : 100e9, link_latency);
  }

  // Forwarding tables.
  std::map<int, int> host_by_lid;
  for (const auto& id : cas)
    if (nodes[id].lid) host_by_lid[nodes[id].lid] = p.nodes[index[id]].host_index;
  std::map<std::string, int> switch_by_guid;
  for (const auto& id : node_order)
    if (nodes[id].is_switch) {
      std::string g = id.substr(id.find('-') + 1);
      g.erase(0, std::min(g.find_first_not_of('0'), g.size()));
      std::transform(g.begin(), g.end(), g.begin(), ::tolower);
      switch_by_guid[g] = index[id];
    }
  static const std::regex kHeader(R"re(^Unicast lids .* guid 0x([0-9a-fA-F]+))re");
  static const std::regex kEntry(R"re(^0x([0-9a-fA-F]+)\s+(\d+)\s*:?.*$)re");
  std::istringstream lin(lfts_text);
  int sw = -1, lline = 0;
  bool any = false;
  for (auto& s : p.switches) p.nodes[s].table.assign(p.hosts.size(), 0);
  while (std::getline(lin, line)) {
    ++lline;
    std::smatch m;
    if (std::regex_search(line, m, kHeader)) {
      std::string g = m[1];
      g.erase(0, std::min(g.find_first_not_of('0'), g.size()));
      std::transform(g.begin(), g.end(), g.begin(), ::tolower);
      const auto it = switch_by_guid.find(g);
      if (it == switch_by_guid.end())
        throw ConfigError(lfts_name + ":" + std::to_string(lline) + ": switch guid 0x" +
                          m[1].str() + " is not in " + topology_name);
      sw = it->second;
      any = true;
    } else if (std::regex_match(line, m, kEntry)) {
      if (sw < 0)
        throw ConfigError(lfts_name + ":" + std::to_string(lline) +
                          ": a table entry before any 'Unicast lids ... of switch' header");
      const std::string at = lfts_name + ":" + std::to_string(lline);
      const int lid = field(m[1], 16, 0xFFFF, at, "LID");
      const int port = field(m[2], 10, 255, at, "port");
      const auto h = host_by_lid.find(lid);
      if (h != host_by_lid.end()) p.nodes[sw].table[h->second] = port;
    }
  }
  if (!any)
    throw ConfigError(lfts_name +
                      ": no 'Unicast lids ... of switch' tables (is this dump_lfts output?)");
  p.source = topology_name + " + " + lfts_name;
  p.finish();
  return p;
}

Platform read_fabric(const std::string& topology_path, const std::string& lfts_path,
                     double link_latency) {
  return read_fabric_text(read_file(topology_path, "ibnetdiscover topology"), topology_path,
                          read_file(lfts_path, "dump_lfts tables"), lfts_path, link_latency);
}

}  // namespace evb::topo
