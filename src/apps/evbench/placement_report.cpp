#include "apps/evbench/placement_report.hpp"

#include <vector>

#include "core/placement.hpp"

namespace evb {

std::string placement_line(const Config& c, const Summary& s, const RunOptions& o) {
  if (!o.simulated_platform.empty()) return "simulated (the ranks are threads of one process)";
  std::vector<std::string> hosts;
  std::vector<std::vector<int>> cpus;
  for (const Summary::Placed& p : s.placed) {
    hosts.push_back(p.host);
    cpus.push_back(p.cpus);
  }
  return describe_placement(c.bind, c.bootstrap, hosts, cpus);
}

void write_placement(JsonWriter& w, const Config& c, const Summary& s, const std::string& line) {
  w.begin_object("placement");
  w.value("bind", to_string(c.bind));
  w.value("summary", line);
  w.begin_array("ranks");
  for (const Summary::Placed& p : s.placed) {
    w.begin_object();
    w.value("rank", p.rank);
    w.value("host", p.host);
    w.begin_array("cpus");
    for (int cpu : p.cpus) w.value("", cpu);
    w.end_array();
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace evb
