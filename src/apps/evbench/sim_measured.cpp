#include "apps/evbench/sim_measured.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace evb {
namespace {

[[noreturn]] void fail(const std::string& name, const std::string& key, const std::string& why) {
  throw ConfigError(name + ": " + (key.empty() ? "" : key + ": ") + why);
}

// The node at a dotted path ("results.bandwidth_gbps.per_node.avg"), or an
// undefined node. Node::reset rebinds `n` (assignment would overwrite the
// node it refers to).
YAML::Node at(const YAML::Node& root, const std::string& dotted) {
  YAML::Node n;
  n.reset(root);
  std::istringstream parts(dotted);
  for (std::string part; std::getline(parts, part, '.');) {
    if (!n.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node child = static_cast<const YAML::Node&>(n)[part];
    if (!child.IsDefined()) return YAML::Node(YAML::NodeType::Undefined);
    n.reset(child);
  }
  return n;
}

template <typename T>
T need(const YAML::Node& root, const std::string& name, const std::string& key) {
  const YAML::Node n = at(root, key);
  if (!n.IsDefined() || !n.IsScalar())
    fail(name, key, "missing: not a results document of evbench run");
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    fail(name, key, "'" + n.Scalar() + "' is not a value of this key's type");
  }
}

}  // namespace

std::string MeasuredRun::summary() const {
  return protocol + ", " + std::to_string(nodes) + " nodes, " + scheduling + ", fragment " +
         std::to_string(fragment) + " B, driver " + driver;
}

MeasuredRun parse_measured_run(const std::string& text, const std::string& name,
                               bool allow_links_only) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(name, "", std::string("not a results JSON (") + e.what() + ")");
  }
  if (!root.IsMap() || !root["results"].IsMap() || !root["config"].IsMap())
    fail(name, "results",
         "missing: not a results document of evbench run (give the --json file of a run)");
  if (at(root, "tool").IsScalar() && at(root, "tool").Scalar() != "evbench")
    fail(name, "tool", "'" + at(root, "tool").Scalar() + "': not evbench's results document");
  if (const YAML::Node sim = at(root, "results.simulated"); sim.IsScalar() && sim.as<bool>(false))
    fail(name, "results.simulated",
         "a simulated run: calibrate from a measured one (a results JSON of evbench run)");
  MeasuredRun m;
  m.path = name;
  m.protocol = need<std::string>(root, name, "config.protocol");
  const bool links_only = allow_links_only && m.protocol == "one-to-one";
  if (const YAML::Node b = at(root, "results.builds_events");
      b.IsScalar() && !b.as<bool>(true) && !links_only)
    fail(name, "results.builds_events",
         "false: protocol " + m.protocol +
             " builds no events; calibrate from an event-building run (pull, push, ...)");
  m.driver = need<std::string>(root, name, "config.driver");
  m.scheduling = need<std::string>(root, name, "config.scheduling");
  m.nodes = need<int>(root, name, "config.nodes");
  m.fragment = need<uint64_t>(root, name, "config.fragment.size");
  m.events_built = need<uint64_t>(root, name, "results.events_built");
  if (m.events_built == 0)
    fail(name, "results.events_built", "0: the run built nothing, so there is no rate to fit");
  m.events_per_second = need<double>(root, name, "results.events_per_second");
  m.per_node_gbps = need<double>(root, name, "results.bandwidth_gbps.per_node.avg");
  if (!(m.per_node_gbps > 0) || !std::isfinite(m.per_node_gbps))
    fail(name, "results.bandwidth_gbps.per_node.avg",
         "must be a positive rate to fit (the run moved no data in its window)");
  if (const YAML::Node p50 = at(root, "results.latency_ms.p50"); p50.IsScalar())
    m.latency_p50_ms = p50.as<double>(0);
  if (const YAML::Node shifts = at(root, "results.shifts"); links_only && shifts.IsSequence())
    for (const auto& s : shifts) {
      if (at(s, "local_copy").IsScalar() && at(s, "local_copy").as<bool>(false)) continue;
      MeasuredRun::ShiftRate r;
      r.shift = need<int>(s, name, "shift");
      r.per_node_gbps = need<double>(s, name, "per_node.avg");
      m.shifts.push_back(r);
    }
  for (const char* role : {"ru", "bu"}) {
    const std::string key = std::string("results.cost.") + role + ".cpu_us_per_fragment";
    const YAML::Node us = at(root, key);
    if (!us.IsScalar()) continue;
    const double s = us.as<double>(-1) * 1e-6;
    if (!(s >= 0) || !std::isfinite(s)) fail(name, key, "'" + us.Scalar() + "' is not a CPU time");
    const uint64_t n =
        at(root, std::string("results.cost.") + role + ".cpu_fragments").as<uint64_t>(0);
    (role[0] == 'r' ? m.ru_fragment_cpu_s : m.bu_fragment_cpu_s) = s;
    (role[0] == 'r' ? m.ru_cpu_fragments : m.bu_cpu_fragments) = n;
  }
  if (const YAML::Node ranks = at(root, "results.rank_cpu"); ranks.IsSequence())
    for (const auto& r : ranks)
      if (at(r, "ru").IsDefined() && at(r, "bu").IsDefined()) m.cpu_shared = true;
  if (const YAML::Node sha = at(root, "versions.git_sha"); sha.IsScalar()) m.git_sha = sha.Scalar();
  if (const YAML::Node load = at(root, "results.host_load"); load.IsSequence())
    for (const auto& h : load)
      if (const YAML::Node n = at(h, "hostname"); n.IsScalar()) m.hosts.push_back(n.Scalar());
  YAML::Node config = YAML::Clone(root["config"]);
  for (const char* key : {"driver", "driver_options", "bootstrap", "poll_mode"}) config.remove(key);
  YAML::Emitter out;
  out << config;
  m.config_yaml = std::string(out.c_str()) + "\n";
  return m;
}

MeasuredRun read_measured_run(const std::string& path, bool allow_links_only) {
  std::ifstream in(path);
  if (!in) fail(path, "", "cannot read the measured results");
  std::stringstream text;
  text << in.rdbuf();
  return parse_measured_run(text.str(), path, allow_links_only);
}

}  // namespace evb
