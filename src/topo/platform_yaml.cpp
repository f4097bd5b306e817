// The platform YAML description (docs/TOPOLOGY.md): a generated fat tree, an
// explicit list of switches, hosts and cables, or a fabric dump; optional
// per-switch table entries on top. Errors read FILE:LINE:COLUMN: KEY: reason.
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "core/config_detail.hpp"
#include "core/error.hpp"
#include "topo/fat_tree.hpp"
#include "topo/platform_keys.hpp"
#include "topo/platform_loader.hpp"
#include "topo/routing.hpp"

namespace evb::topo {
namespace {

// Reads one YAML document, turning every mistake into FILE:L:C: KEY: reason.
class Reader {
 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}

  std::string at(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    if (m.is_null()) return name_;
    return name_ + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& key,
                         const std::string& why) const {
    throw ConfigError(at(n) + ": " + key + ": " + why);
  }

  // Every key of `map` must be one of the table's (platform_keys.cpp) under
  // `group`; `what` names the map in messages.
  void keys(const YAML::Node& map, const std::string& what, const std::string& group) const {
    const std::vector<std::string> allowed = platform_key_names(group);
    if (!map.IsMap()) fail(map, what, "expected a map");
    for (const auto& kv : map) {
      const std::string k = kv.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), k) != allowed.end()) continue;
      std::string hint = config_detail::did_you_mean(k, allowed);
      if (hint.empty()) {
        hint = " (known:";
        for (const auto& a : allowed) hint += " " + a;
        hint += ")";
      }
      fail(kv.first, what.empty() ? k : what + "." + k, "unknown key" + hint);
    }
  }

  std::string text(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) fail(n, key, "expected a single value");
    return n.Scalar();
  }
  long integer(const YAML::Node& n, const std::string& key, long lo, long hi) const {
    const std::string t = text(n, key);
    char* end = nullptr;
    const long v = std::strtol(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0') fail(n, key, "expected an integer, got '" + t + "'");
    if (v < lo || v > hi)
      fail(n, key,
           std::to_string(v) + " is outside " + std::to_string(lo) + " .. " + std::to_string(hi));
    return v;
  }
  double seconds(const YAML::Node& n, const std::string& key) const {
    std::string reason;
    auto v = config_detail::try_parse_duration(text(n, key), reason);
    if (!v) fail(n, key, reason);
    return *v;
  }
  // "100Gbit/s", "1 Gbit/s", "25Gb/s", "800Mbit/s", or bit/s as a number.
  double bits_per_second(const YAML::Node& n, const std::string& key) const {
    const std::string t = text(n, key);
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    std::string unit(end);
    unit.erase(0, unit.find_first_not_of(' '));
    static const std::map<std::string, double> kUnits = {
        {"", 1},         {"bit/s", 1},    {"kbit/s", 1e3},  {"Kbit/s", 1e3},
        {"Mbit/s", 1e6}, {"Gbit/s", 1e9}, {"Tbit/s", 1e12}, {"kb/s", 1e3},
        {"Mb/s", 1e6},   {"Gb/s", 1e9},   {"Tb/s", 1e12}};
    const auto it = kUnits.find(unit);
    if (end == t.c_str() || it == kUnits.end() || !(v > 0))
      fail(n, key,
           "expected a positive rate such as 100Gbit/s, 25Gb/s or 800Mbit/s, got '" + t + "'");
    return v * it->second;
  }

 private:
  std::string name_;
};

struct LinkSpec {
  double bandwidth = 100e9;
  double latency = 1e-7;
};

LinkSpec read_link(const Reader& r, const YAML::Node& n, const std::string& key, LinkSpec d) {
  r.keys(n, key, key);
  if (n["bandwidth"]) d.bandwidth = r.bits_per_second(n["bandwidth"], key + ".bandwidth");
  if (n["latency"]) d.latency = r.seconds(n["latency"], key + ".latency");
  return d;
}

int find_switch(const Reader& r, const Platform& p, const YAML::Node& n, const std::string& key) {
  const std::string name = r.text(n, key);
  const int idx = p.find_node(name);
  if (idx < 0 || p.nodes[idx].kind != NodeKind::switch_node)
    r.fail(n, key, "no switch named '" + name + "'");
  return idx;
}

FatTreeSpec read_fat_tree(const Reader& r, const YAML::Node& t) {
  r.keys(t, "fat_tree", "fat_tree");
  FatTreeSpec s;
  auto num = [&](const char* k, int& field, long lo, long hi) {
    if (t[k]) field = static_cast<int>(r.integer(t[k], std::string("fat_tree.") + k, lo, hi));
  };
  num("levels", s.levels, 2, 3);
  num("pods", s.pods, 1, 4096);
  num("leaves", s.leaves, 1, 4096);
  num("ports", s.ports, 1, 4096);
  num("uplinks", s.uplinks, 0, 4096);
  num("spines", s.spines, 0, 4096);
  num("core_uplinks", s.core_uplinks, 0, 4096);
  num("misplaced", s.misplaced, 0, 1 << 20);
  if (t["director"]) {
    const auto v = config_detail::try_parse_boolean(r.text(t["director"], "fat_tree.director"));
    if (!v) r.fail(t["director"], "fat_tree.director", "expected true or false");
    s.director = *v;
  }
  if (t["host_prefix"]) s.host_prefix = r.text(t["host_prefix"], "fat_tree.host_prefix");
  if (const auto pop = t["populated"]) {
    if (pop.IsScalar()) {
      const int v = static_cast<int>(r.integer(pop, "fat_tree.populated", 0, s.ports));
      s.populated.assign(static_cast<size_t>(s.pods) * s.leaves, v);
    } else if (pop.IsSequence()) {
      for (const auto& e : pop)
        s.populated.push_back(static_cast<int>(r.integer(e, "fat_tree.populated", 0, s.ports)));
    } else {
      r.fail(pop, "fat_tree.populated", "expected a number or a list of numbers (one per leaf)");
    }
  }
  if (const auto holes = t["holes"]) {
    if (!holes.IsSequence()) r.fail(holes, "fat_tree.holes", "expected a list of [leaf, port]");
    for (const auto& h : holes) {
      if (!h.IsSequence() || h.size() != 2)
        r.fail(h, "fat_tree.holes", "expected [leaf, port] (both from 0)");
      s.holes.emplace_back(static_cast<int>(r.integer(h[0], "fat_tree.holes", 0, 1 << 20)),
                           static_cast<int>(r.integer(h[1], "fat_tree.holes", 0, 1 << 20)));
    }
  }
  return s;
}

void read_explicit(const Reader& r, const YAML::Node& root, Platform& p, const LinkSpec& host,
                   const LinkSpec& sw) {
  const auto switches = root["switches"];
  if (!switches || !switches.IsSequence())
    r.fail(switches ? switches : root, "switches", "expected a list of switch names");
  for (const auto& s : switches) {
    const std::string name = r.text(s, "switches");
    if (p.find_node(name) >= 0) r.fail(s, "switches", "'" + name + "' is listed twice");
    p.add_switch(name, 0);
  }
  const auto hosts = root["hosts"];
  if (!hosts || !hosts.IsSequence())
    r.fail(hosts ? hosts : root, "hosts", "expected a list of {name, switch, port}");
  for (const auto& h : hosts) {
    r.keys(h, "hosts", "hosts[]");
    if (!h["name"] || !h["switch"] || !h["port"]) r.fail(h, "hosts", "needs name, switch and port");
    const std::string name = r.text(h["name"], "hosts.name");
    if (p.find_node(name) >= 0) r.fail(h["name"], "hosts.name", "'" + name + "' is used twice");
    const int s = find_switch(r, p, h["switch"], "hosts.switch");
    const int port = static_cast<int>(r.integer(h["port"], "hosts.port", 1, 4096));
    if (static_cast<size_t>(port) < p.nodes[s].port_link.size() && p.nodes[s].port_link[port] != -1)
      r.fail(h["port"], "hosts.port", "port " + std::to_string(port) + " is cabled twice");
    LinkSpec l = host;
    if (h["bandwidth"]) l.bandwidth = r.bits_per_second(h["bandwidth"], "hosts.bandwidth");
    if (h["latency"]) l.latency = r.seconds(h["latency"], "hosts.latency");
    p.connect(p.add_host(name), 1, s, port, l.bandwidth, l.latency);
  }
  if (const auto cables = root["cables"]) {
    if (!cables.IsSequence()) r.fail(cables, "cables", "expected a list of {a, a_port, b, b_port}");
    for (const auto& c : cables) {
      r.keys(c, "cables", "cables[]");
      if (!c["a"] || !c["a_port"] || !c["b"] || !c["b_port"])
        r.fail(c, "cables", "needs a, a_port, b and b_port");
      const int a = find_switch(r, p, c["a"], "cables.a");
      const int b = find_switch(r, p, c["b"], "cables.b");
      const int pa = static_cast<int>(r.integer(c["a_port"], "cables.a_port", 1, 4096));
      const int pb = static_cast<int>(r.integer(c["b_port"], "cables.b_port", 1, 4096));
      for (const char* end : {"a", "b"}) {
        const std::string port_key = std::string(end) + "_port";
        const int node = end[0] == 'a' ? a : b;
        const int port = end[0] == 'a' ? pa : pb;
        if (static_cast<size_t>(port) < p.nodes[node].port_link.size() &&
            p.nodes[node].port_link[port] != -1)
          r.fail(c[port_key], "cables." + port_key,
                 "port " + std::to_string(port) + " of " + p.nodes[node].name + " is cabled twice");
      }
      LinkSpec l = sw;
      if (c["bandwidth"]) l.bandwidth = r.bits_per_second(c["bandwidth"], "cables.bandwidth");
      if (c["latency"]) l.latency = r.seconds(c["latency"], "cables.latency");
      p.connect(a, pa, b, pb, l.bandwidth, l.latency);
    }
  }
}

// `tables: {SWITCH: {HOST: PORT, ...}}` entries override generated ones.
void read_tables(const Reader& r, const YAML::Node& tables, Platform& p) {
  if (!tables.IsMap()) r.fail(tables, "tables", "expected a map of switch: {host: port}");
  for (const auto& kv : tables) {
    const int s = find_switch(r, p, kv.first, "tables");
    Node& sw = p.nodes[s];
    const std::string key = "tables." + sw.name;
    if (!kv.second.IsMap()) r.fail(kv.second, key, "expected a map of host: port");
    sw.table.resize(p.hosts.size(), 0);
    for (const auto& e : kv.second) {
      const std::string host = r.text(e.first, key);
      const int h = p.find_host(host);
      if (h < 0) r.fail(e.first, key, "no host named '" + host + "'");
      const int port = static_cast<int>(r.integer(e.second, key + "." + host, 1, 4096));
      if (static_cast<size_t>(port) >= sw.port_link.size() || sw.port_link[port] == -1)
        r.fail(e.second, key + "." + host,
               "port " + std::to_string(port) + " of " + sw.name + " has nothing cabled");
      sw.table[h] = port;
    }
  }
}

// `network: {chunk, buffer, mtu, queueing, switching, infinite_buffers,
// flow_window, virtual_lanes, vl_map}`.
NetworkSettings read_network(const Reader& r, const YAML::Node& n) {
  r.keys(n, "network", "network");
  NetworkSettings s;
  const auto size = [&](const char* k, uint64_t& field, uint64_t most) {
    if (!n[k]) return;
    const std::string key = std::string("network.") + k;
    std::string reason;
    const auto v = config_detail::try_parse_size(r.text(n[k], key), reason);
    if (!v) r.fail(n[k], key, reason);
    if (*v < 1 || *v > most)
      r.fail(n[k], key,
             "expected 1 B .. " + config_detail::format_size(most) + ", got " +
                 config_detail::format_size(*v));
    field = *v;
  };
  size("chunk", s.chunk_bytes, uint64_t{1} << 30);
  size("buffer", s.buffer_bytes, uint64_t{1} << 40);
  size("mtu", s.mtu_bytes, uint64_t{1} << 30);
  // One of `values`, by the names network_settings.cpp gives them.
  const auto choice = [&](const char* k, auto& field, auto values, auto name) {
    if (!n[k]) return;
    const std::string key = std::string("network.") + k;
    const std::string t = r.text(n[k], key);
    std::string known;
    for (const auto v : values) {
      if (t == name(v)) return void(field = v);
      known += std::string(known.empty() ? "" : " or ") + name(v);
    }
    r.fail(n[k], key, "expected " + known + ", got '" + t + "'");
  };
  choice("queueing", s.queueing, std::array{Queueing::fifo, Queueing::voq}, queueing_name);
  choice("switching", s.switching, std::array{Switching::cut_through, Switching::store_and_forward},
         switching_name);
  choice("vl_map", s.vl_map, std::array{VlMap::traffic, VlMap::destination}, vl_map_name);
  if (const auto v = n["virtual_lanes"])
    s.virtual_lanes = static_cast<int>(r.integer(v, "network.virtual_lanes", 1, kMaxVirtualLanes));
  if (const auto b = n["infinite_buffers"]) {
    const auto v = config_detail::try_parse_boolean(r.text(b, "network.infinite_buffers"));
    if (!v) r.fail(b, "network.infinite_buffers", "expected true or false");
    s.infinite_buffers = *v;
  }
  if (const auto w = n["flow_window"]) {
    const std::string t = r.text(w, "network.flow_window");
    const auto v = config_detail::try_parse_integer(t);
    if (!v || *v < 0 || *v > kMaxFlowWindow)
      r.fail(w, "network.flow_window",
             "expected a whole number of chunks, 0 (no window) .. " +
                 std::to_string(kMaxFlowWindow) + ", got '" + t + "'");
    s.flow_window = static_cast<uint32_t>(*v);
  }
  if (!s.infinite_buffers && s.buffer_bytes < s.chunk_bytes)
    r.fail(n["buffer"] ? n["buffer"] : n, "network.buffer",
           config_detail::format_size(s.buffer_bytes) + " holds no chunk of " +
               config_detail::format_size(s.chunk_bytes) + " (network.chunk): nothing could move");
  return s;
}

}  // namespace

Platform load_platform_text(const std::string& yaml_text, const std::string& name,
                            const std::string& dir) {
  const Reader r(name);
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(name + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg);
  }
  if (!root.IsMap()) throw ConfigError(name + ": a platform is a map of key: value");
  r.keys(root, "", "");
  LinkSpec host_link, switch_link;
  if (const auto links = root["links"]) {
    r.keys(links, "links", "links");
    if (links["host"]) host_link = read_link(r, links["host"], "links.host", host_link);
    if (links["switch"]) switch_link = read_link(r, links["switch"], "links.switch", switch_link);
  }
  const std::string routing = root["routing"] ? r.text(root["routing"], "routing") : "";
  const uint64_t seed =
      root["seed"] ? static_cast<uint64_t>(r.integer(root["seed"], "seed", 0, 1L << 62)) : 1;
  const int kinds = (root["fat_tree"] ? 1 : 0) + (root["hosts"] || root["switches"] ? 1 : 0) +
                    (root["fabric"] ? 1 : 0);
  if (kinds != 1)
    r.fail(root, "platform",
           "give exactly one of fat_tree, switches + hosts (+ cables), or fabric");

  Platform p;
  if (const auto t = root["fat_tree"]) {
    FatTreeSpec s = read_fat_tree(r, t);
    if (routing == "irregular") {
      s.routing = TreeRouting::irregular;
    } else if (!routing.empty() && routing != "d-mod-k") {
      r.fail(root["routing"], "routing",
             "expected d-mod-k or irregular for a fat_tree, got '" + routing + "'");
    }
    s.seed = seed;
    s.host_bandwidth = host_link.bandwidth;
    s.host_latency = host_link.latency;
    s.switch_bandwidth = switch_link.bandwidth;
    s.switch_latency = switch_link.latency;
    if (root["name"]) s.name = r.text(root["name"], "name");
    p = make_fat_tree(s, r.at(t) + ": fat_tree");
  } else if (const auto f = root["fabric"]) {
    r.keys(f, "fabric", "fabric");
    if (!f["topology"] || !f["lfts"]) r.fail(f, "fabric", "needs topology and lfts (file names)");
    if (!routing.empty()) r.fail(root["routing"], "routing", "a fabric dump has its own tables");
    const auto rel = [&](const YAML::Node& n, const char* k) {
      std::filesystem::path path = r.text(n, k);
      return path.is_absolute() ? path.string() : (std::filesystem::path(dir) / path).string();
    };
    p = read_fabric(rel(f["topology"], "fabric.topology"), rel(f["lfts"], "fabric.lfts"),
                    f["latency"] ? r.seconds(f["latency"], "fabric.latency") : host_link.latency);
  } else {
    read_explicit(r, root, p, host_link, switch_link);
    if (routing.empty() || routing == "shortest") {
      fill_shortest_tables(p);
    } else if (routing != "tables") {
      r.fail(root["routing"], "routing",
             "expected shortest or tables for switches + hosts, got '" + routing + "'");
    }
  }
  if (root["name"]) p.name = r.text(root["name"], "name");
  p.source = name;
  if (const auto tables = root["tables"]) read_tables(r, tables, p);
  if (const auto network = root["network"]) p.network = read_network(r, network);
  p.finish();
  return p;
}

Platform load_platform(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path + ": cannot read the platform: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read the platform: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  const auto parent = std::filesystem::path(path).parent_path();
  return load_platform_text(text.str(), path, parent.empty() ? "." : parent.string());
}

}  // namespace evb::topo
