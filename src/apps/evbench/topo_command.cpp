// `evbench topo`: loads a platform, scans every barrel-shift step for flows
// per directional inter-switch link, proposes a better rank order (or node
// selection) and prints a table, optionally JSON and the proposed order file.
#include "apps/evbench/topo_command.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "apps/evbench/output_check.hpp"
#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "topo/ibnet_writer.hpp"
#include "topo/order_search.hpp"
#include "topo/platform_keys.hpp"
#include "topo/platform_loader.hpp"
#include "topo/prediction_json.hpp"
#include "topo/shift_scan.hpp"

namespace evb {
namespace {

struct TopoArgs {
  std::string platform, order, json, write_order, write_ibnet;
  int nodes = 0;
  bool keep_hosts = false, quiet = false, reference = false;
  uint64_t seed = 1;
  int64_t iterations = -1;
};

long number(const std::string& flag, const std::string& text, long lo) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lo)
    throw UsageError("topo: " + flag + " expects an integer >= " + std::to_string(lo) + ", got '" +
                     text + "'");
  return v;
}

TopoArgs parse_args(int argc, char** argv, int first) {
  TopoArgs a;
  for (int i = first; i < argc; ++i) {
    const std::string s = argv[i];
    auto need = [&](const char* what) -> std::string {
      if (i + 1 >= argc) throw UsageError("topo: " + s + " needs " + what);
      return argv[++i];
    };
    if (s == "--order") {
      a.order = need("a file name");
    } else if (s == "--nodes") {
      a.nodes = static_cast<int>(number(s, need("a number"), 2));
    } else if (s == "--json") {
      a.json = need("a file name");
    } else if (s == "--write-order") {
      a.write_order = need("a file name");
    } else if (s == "--write-ibnetdiscover") {
      a.write_ibnet = need("a file name");
    } else if (s == "--seed") {
      a.seed = static_cast<uint64_t>(number(s, need("a number"), 0));
    } else if (s == "--iterations") {
      a.iterations = number(s, need("a number"), 0);
    } else if (s == "--keep-hosts") {
      a.keep_hosts = true;
    } else if (s == "--reference") {
      a.reference = true;
    } else if (s == "--quiet" || s == "-q") {
      a.quiet = true;
    } else if (!s.empty() && s[0] == '-') {
      throw UsageError("topo: unknown option '" + s + "' (see evbench --help)");
    } else if (a.platform.empty()) {
      a.platform = s;
    } else {
      throw UsageError("topo: more than one PLATFORM given ('" + a.platform + "', '" + s + "')");
    }
  }
  if (a.platform.empty() && !a.reference)
    throw UsageError("topo: PLATFORM is required (see evbench --help)");
  return a;
}

void write_scan(JsonWriter& j, const topo::Platform& p, const topo::ShiftScan& scan,
                const std::vector<int>& order) {
  j.begin_array("order");
  for (int h : order) j.value("", p.host(h).name);
  j.end_array();
  j.value("max_flows", scan.max_flows);
  j.value("worst_shift", scan.worst_shift);
  j.value("step_units", scan.step_units);
  j.value("efficiency", scan.efficiency());
  j.begin_array("steps");
  for (const auto& s : scan.steps) {
    j.begin_object();
    j.value("shift", s.shift);
    j.value("max_flows", s.max_flows);
    j.value("worst_link", s.worst_link >= 0 ? p.link_name(s.worst_link) : std::string());
    j.value("crossing_flows", s.crossing_flows);
    j.value("loaded_links", s.loaded_links);
    j.value("conflicted_links", s.conflicted_links);
    j.end_object();
  }
  j.end_array();
}

}  // namespace

int topo_command(int argc, char** argv, int first) {
  const TopoArgs a = parse_args(argc, argv, first);
  if (a.reference) {  // the platform key table of docs/TOPOLOGY.md
    std::fputs(topo::platform_reference_markdown().c_str(), stdout);
    return kExitOk;
  }
  check_output_path("--json", a.json);
  check_output_path("--write-order", a.write_order);
  check_output_path("--write-ibnetdiscover", a.write_ibnet);
  const auto t0 = std::chrono::steady_clock::now();
  const topo::Platform p = topo::load_platform(a.platform);
  if (!a.write_ibnet.empty()) {  // the cabling for ibsim (scripts/opensm-routes.sh); no scan
    std::ofstream out(a.write_ibnet);
    out << topo::ibnetdiscover_text(p);
    if (!out) throw Error(a.write_ibnet + ": cannot write the ibnetdiscover topology");
    std::printf("# %s: %d hosts, %zu switches written to %s\nOK\n", p.name.c_str(), p.host_count(),
                p.switches.size(), a.write_ibnet.c_str());
    return kExitOk;
  }
  std::vector<int> pool;
  if (!a.order.empty()) {
    pool = topo::load_order(p, a.order);
  } else {
    for (int h = 0; h < p.host_count(); ++h) pool.push_back(h);
  }
  const int n = a.nodes ? a.nodes : static_cast<int>(pool.size());
  if (n > static_cast<int>(pool.size()))
    throw ConfigError((a.order.empty() ? a.platform : a.order) + ": --nodes " + std::to_string(n) +
                      " but only " + std::to_string(pool.size()) + " hosts " +
                      (a.order.empty() ? "in the platform" : "in the order file"));
  if (n < 2) throw ConfigError(a.platform + ": a barrel shift needs at least 2 hosts");
  const std::vector<int> order(pool.begin(), pool.begin() + n);
  const topo::ShiftScan scan = topo::scan_barrel(p, order);
  topo::SearchOptions opt;
  opt.nodes = n;
  opt.select = !a.keep_hosts && static_cast<int>(pool.size()) > n;
  opt.seed = a.seed;
  opt.iterations = a.iterations;
  const topo::OrderProposal prop = topo::propose_order(p, pool, opt);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  int isl = 0;
  for (size_t l = 0; l < p.links.size(); ++l) isl += p.inter_switch(static_cast<int>(l));
  if (!a.quiet) {
    std::printf("# evbench topo %s: %d hosts, %zu switches, %d directional inter-switch links\n",
                p.name.c_str(), p.host_count(), p.switches.size(), isl);
    std::printf("# %d ranks, order: %s\n", n,
                a.order.empty() ? "the platform's first hosts" : a.order.c_str());
    std::printf("# %5s %9s %7s %10s %9s  %s\n", "shift", "crossing", "loaded", "conflicted",
                "max_flows", "worst link");
    for (const auto& s : scan.steps)
      std::printf("  %5d %9d %7d %10d %9d  %s\n", s.shift, s.crossing_flows, s.loaded_links,
                  s.conflicted_links, s.max_flows,
                  s.worst_link >= 0 ? p.link_name(s.worst_link).c_str() : "-");
  }
  std::printf(
      "# barrel shift: max %d flows per link (first at shift %d), %lld step units for "
      "%d steps, efficiency %.3f\n",
      scan.max_flows, scan.worst_shift, static_cast<long long>(scan.step_units), n - 1,
      scan.efficiency());
  std::printf("# proposed %s: max %d flows per link, %lld step units, efficiency %.3f (%s)\n",
              opt.select ? "node selection and order" : "order", prop.scan.max_flows,
              static_cast<long long>(prop.scan.step_units), prop.scan.efficiency(),
              prop.method.c_str());
  if (!a.write_order.empty()) {
    std::ofstream out(a.write_order);
    out << "# evbench topo " << a.platform << ": proposed order, max " << prop.scan.max_flows
        << " flows per link\n";
    for (int h : prop.order) out << p.host(h).name << "\n";
    if (!out) throw Error(a.write_order + ": cannot write the proposed order");
    std::printf("# proposed order written to %s\n", a.write_order.c_str());
  }
  if (!a.json.empty()) {
    JsonWriter j;
    j.begin_object();
    j.value("platform", p.name);
    j.value("platform_file", a.platform);
    j.value("hosts", p.host_count());
    j.value("switches", static_cast<int64_t>(p.switches.size()));
    j.value("inter_switch_links", isl);
    j.value("nodes", n);
    j.value("seconds", seconds);
    j.begin_object("barrel");
    write_scan(j, p, scan, order);
    j.end_object();
    // What a one-to-one shift scan over these ranks should measure per shift
    // (docs/TOPOLOGY.md "Predicted shift-scan rates").
    j.begin_array("shifts");
    for (const topo::ShiftPrediction& sp : topo::predict_shifts(p, order)) {
      j.begin_object();
      j.value("shift", sp.shift);
      topo::write_prediction_fields(j, p, sp);
      j.end_object();
    }
    j.end_array();
    j.begin_object("proposal");
    j.value("method", prop.method);
    j.value("selection", opt.select);
    write_scan(j, p, prop.scan, prop.order);
    j.end_object();
    j.end_object();
    std::ofstream out(a.json);
    out << j.str() << "\n";
    if (!out) throw Error(a.json + ": cannot write the JSON report");
  }
  std::printf("# %.2f s\nOK\n", seconds);
  return kExitOk;
}

}  // namespace evb
