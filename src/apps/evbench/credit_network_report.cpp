#include "apps/evbench/credit_network_report.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

namespace evb {

namespace {

constexpr size_t kShown = 5;

std::vector<int> by(const std::vector<simnet::LinkStats>& s, bool isl_only, const topo::Platform& p,
                    int64_t simnet::LinkStats::*field) {
  std::vector<int> order;
  for (int l = 0; l < static_cast<int>(s.size()); ++l)
    if (s[l].*field > 0 && (!isl_only || p.inter_switch(l))) order.push_back(l);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return s[a].*field > s[b].*field; });
  if (order.size() > kShown) order.resize(kShown);
  return order;
}

double per_wall_second(uint64_t events, double wall_s) {
  return wall_s > 0 ? static_cast<double>(events) / wall_s : 0.0;
}

double share(int64_t part, int64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

std::string credit_network_text(const topo::Platform& p, const simnet::CreditNetwork& net,
                                int64_t elapsed_ns, double wall_s) {
  const auto& s = net.link_stats();
  const auto& q = net.params();
  char line[512];
  const std::string window =
      (q.flow_window > 0 ? ", flow window " + std::to_string(q.flow_window) + " chunks" : "") +
      (q.virtual_lanes > 1 ? ", " + std::to_string(q.virtual_lanes) + " virtual lanes (" +
                                 topo::vl_map_name(q.vl_map) + ")"
                           : "");
  std::snprintf(line, sizeof line,
                "# network: chunk %llu B, buffer %llu B per input port and VL, %s, %s%s%s; %llu "
                "events, "
                "%.2f M per second of wall time\n",
                static_cast<unsigned long long>(q.chunk_bytes),
                static_cast<unsigned long long>(q.buffer_bytes), topo::queueing_name(q.queueing),
                topo::switching_name(q.switching), q.infinite_buffers ? ", infinite buffers" : "",
                window.c_str(), static_cast<unsigned long long>(net.events_processed()),
                per_wall_second(net.events_processed(), wall_s) * 1e-6);
  std::string out = line;
  const std::vector<int> waited = by(s, false, p, &simnet::LinkStats::credit_wait_ns);
  if (waited.empty()) {
    out += "# no link waited for credits\n";
  } else {
    out += "# links whose head chunk waited longest for credits (% of the run):\n";
    for (int l : waited) {
      std::snprintf(line, sizeof line, "#   %-40s %8.3f ms (%5.1f %%), busy %5.1f %%\n",
                    p.link_name(l).c_str(), s[l].credit_wait_ns * 1e-6,
                    share(s[l].credit_wait_ns, elapsed_ns), share(s[l].busy_ns, elapsed_ns));
      out += line;
    }
  }
  const std::vector<int> busy = by(s, true, p, &simnet::LinkStats::busy_ns);
  if (!busy.empty()) {
    out += "# busiest inter-switch links (% of the run transmitting):\n";
    for (int l : busy) {
      std::snprintf(line, sizeof line, "#   %-40s %5.1f %%, %.3f GB\n", p.link_name(l).c_str(),
                    share(s[l].busy_ns, elapsed_ns), s[l].bytes * 1e-9);
      out += line;
    }
  }
  return out;
}

void write_credit_network(JsonWriter& w, const topo::Platform& p, const simnet::CreditNetwork& net,
                          int64_t elapsed_ns, double wall_s) {
  const auto& q = net.params();
  w.value("model", "credit");
  w.value("chunk_bytes", q.chunk_bytes);
  w.value("buffer_bytes", q.buffer_bytes);
  w.value("queueing", topo::queueing_name(q.queueing));
  w.value("switching", topo::switching_name(q.switching));
  w.value("infinite_buffers", q.infinite_buffers);
  w.value("flow_window", static_cast<uint64_t>(q.flow_window));
  w.value("virtual_lanes", static_cast<uint64_t>(q.virtual_lanes));
  w.value("vl_map", topo::vl_map_name(q.vl_map));
  w.value("events", net.events_processed());
  w.value("elapsed_s", elapsed_ns * 1e-9);
  w.value("events_per_wall_s", per_wall_second(net.events_processed(), wall_s));
  w.begin_array("links");
  const auto& s = net.link_stats();
  for (int l = 0; l < static_cast<int>(s.size()); ++l) {
    if (s[l].bytes == 0 && s[l].credit_wait_ns == 0) continue;
    w.begin_object();
    w.value("link", p.link_name(l));
    w.value("inter_switch", p.inter_switch(l));
    w.value("bytes", s[l].bytes);
    w.value("busy_s", s[l].busy_ns * 1e-9);
    w.value("credit_wait_s", s[l].credit_wait_ns * 1e-9);
    w.end_object();
  }
  w.end_array();
}

}  // namespace evb
