#include "apps/evbench/host_load_report.hpp"

#include <algorithm>
#include <cstdio>

namespace evb {
namespace {

// The CPU figures of one host from its earliest and latest readings and
// the CPU time its ranks used.
void cpu_figures(HostLoad& h, const HostLoadReading& first, const HostLoadReading& last,
                 double ours_s) {
  if (!first.ticks || !last.ticks || last.ticks_per_s <= 0) return;
  const CpuTicks& a = *first.ticks;
  const CpuTicks& b = *last.ticks;
  if (b.busy < a.busy || b.steal < a.steal || b.total < a.total) return;  // not one host's counters
  h.cpus = b.cpus;
  const double busy_s =
      static_cast<double>(b.busy - a.busy) / static_cast<double>(last.ticks_per_s);
  h.other_cpu_s = std::max(0.0, busy_s - ours_s);
  if (h.window_s > 0 && h.cpus > 0)
    h.other_cpu_fraction = std::clamp(*h.other_cpu_s / (h.window_s * h.cpus), 0.0, 1.0);
  if (b.total > a.total)
    h.steal_fraction =
        static_cast<double>(b.steal - a.steal) / static_cast<double>(b.total - a.total);
}

void optional_value(JsonWriter& w, const char* key, const std::optional<double>& v) {
  if (v)
    w.value(key, *v);
  else
    w.raw(key, "null");
}

}  // namespace

std::vector<HostLoad> summarize_host_load(const std::vector<RankStats>& ranks) {
  std::vector<HostLoad> hosts;
  std::vector<std::string> seen;
  for (const RankStats& r : ranks) {
    if (!r.host_load.measured || std::find(seen.begin(), seen.end(), r.host) != seen.end())
      continue;
    seen.push_back(r.host);
    HostLoad h;
    h.hostname = r.host;
    const HostLoadWindow* first = nullptr;
    const HostLoadWindow* last = nullptr;
    double ours_s = 0;
    for (const RankStats& q : ranks) {
      if (q.host != r.host || !q.host_load.measured) continue;
      const HostLoadWindow& w = q.host_load;
      h.ranks.push_back(q.rank);
      ours_s += std::max(0.0, w.end.own_cpu_s - w.start.own_cpu_s);
      if (!first || w.start.t_ns < first->start.t_ns) first = &w;
      if (!last || w.end.t_ns > last->end.t_ns) last = &w;
    }
    h.window_s = std::max<int64_t>(0, last->end.t_ns - first->start.t_ns) * 1e-9;
    h.loadavg_start = first->start.loadavg;
    h.loadavg_end = last->end.loadavg;
    h.freq_mhz = last->end.freq_mhz;
    cpu_figures(h, first->start, last->end, ours_s);
    hosts.push_back(std::move(h));
  }
  return hosts;
}

std::string host_load_line(const std::vector<HostLoad>& hosts) {
  if (hosts.empty()) return "";
  const auto busiest =
      std::max_element(hosts.begin(), hosts.end(), [](const auto& a, const auto& b) {
        return a.other_cpu_fraction.value_or(-1) < b.other_cpu_fraction.value_or(-1);
      });
  const HostLoad& h = *busiest;
  char buf[96];
  std::string text = "host load";
  if (hosts.size() > 1)
    text +=
        " (" + std::to_string(hosts.size()) + " hosts, the busiest; results.host_load has each)";
  text += ": " + h.hostname + ", " + (h.cpus > 0 ? std::to_string(h.cpus) : "?") +
          " CPUs: load average ";
  const auto load = [](const std::optional<double>& v) {
    char b[32];
    if (!v) return std::string("?");
    std::snprintf(b, sizeof b, "%.2f", *v);
    return std::string(b);
  };
  text += load(h.loadavg_start) + " -> " + load(h.loadavg_end);
  if (h.other_cpu_fraction)
    std::snprintf(buf, sizeof buf, ", other processes %.1f %% of the CPUs",
                  *h.other_cpu_fraction * 100);
  else
    std::snprintf(buf, sizeof buf, ", other processes not readable");
  text += buf;
  if (h.steal_fraction) {
    std::snprintf(buf, sizeof buf, ", steal %.1f %%", *h.steal_fraction * 100);
    text += buf;
  }
  if (h.freq_mhz)
    std::snprintf(buf, sizeof buf, ", %.0f MHz", *h.freq_mhz);
  else
    std::snprintf(buf, sizeof buf, ", CPU frequency not readable");
  return text + buf;
}

void write_host_load(JsonWriter& w, const std::vector<HostLoad>& hosts) {
  if (hosts.empty()) return;
  w.begin_array("host_load");
  for (const HostLoad& h : hosts) {
    w.begin_object();
    w.value("hostname", h.hostname);
    w.begin_array("ranks");
    for (int r : h.ranks) w.value("", r);
    w.end_array();
    w.value("window_s", h.window_s);
    optional_value(w, "loadavg_start", h.loadavg_start);
    optional_value(w, "loadavg_end", h.loadavg_end);
    optional_value(w, "other_cpu_s", h.other_cpu_s);
    optional_value(w, "other_cpu_fraction", h.other_cpu_fraction);
    optional_value(w, "steal_fraction", h.steal_fraction);
    if (h.cpus > 0)
      w.value("cpus", h.cpus);
    else
      w.raw("cpus", "null");
    optional_value(w, "freq_mhz", h.freq_mhz);
    w.end_object();
  }
  w.end_array();
}

}  // namespace evb
