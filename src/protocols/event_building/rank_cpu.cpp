#include "protocols/event_building/rank_cpu.hpp"

#include <cstdio>

namespace evb {

double RankCpu::per_fragment_s() const {
  const uint64_t n = fragments_sent + fragments_received;
  return n ? (user_s + system_s) / static_cast<double>(n) : 0;
}

FragmentCpu fragment_cpu(const std::vector<EventBuildingStats>& ranks) {
  FragmentCpu out;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const EventBuildingStats& s = ranks[i];
    if (s.cpu_window_s < 0 || (s.ru < 0 && s.bu < 0)) continue;
    RankCpu r;
    r.rank = static_cast<int>(i);
    r.ru = s.ru;
    r.bu = s.bu;
    r.evm = s.evm;
    r.window_s = s.cpu_window_s;
    r.user_s = s.cpu_user_s;
    r.system_s = s.cpu_system_s;
    r.fragments_sent = s.cpu_fragments_sent;
    r.fragments_received = s.cpu_fragments_received;
    out.ranks.push_back(r);
    const uint64_t n = r.fragments_sent + r.fragments_received;
    if (n == 0) continue;
    const double cpu = r.user_s + r.system_s;
    if (r.ru >= 0 && r.bu >= 0) out.shared = true;
    out.ru.cpu_s += cpu * static_cast<double>(r.fragments_sent) / static_cast<double>(n);
    out.ru.fragments += r.fragments_sent;
    out.bu.cpu_s += cpu * static_cast<double>(r.fragments_received) / static_cast<double>(n);
    out.bu.fragments += r.fragments_received;
  }
  return out;
}

void write_rank_cpu(JsonWriter& w, const FragmentCpu& cpu) {
  if (!cpu.measured()) return;
  w.begin_array("rank_cpu");
  for (const RankCpu& r : cpu.ranks) {
    w.begin_object();
    w.value("rank", r.rank);
    if (r.ru >= 0) w.value("ru", r.ru);
    if (r.bu >= 0) w.value("bu", r.bu);
    if (r.evm) w.value("evm", true);
    w.value("window_s", r.window_s);
    w.value("user_s", r.user_s);
    w.value("system_s", r.system_s);
    w.value("fragments_sent", r.fragments_sent);
    w.value("fragments_received", r.fragments_received);
    w.value("cpu_us_per_fragment", r.per_fragment_s() * 1e6);
    w.end_object();
  }
  w.end_array();
}

std::string fragment_cpu_line(const FragmentCpu& cpu) {
  if (!cpu.measured()) return {};
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "# CPU per fragment (the ranks' own, user + system, in the window): RU %.3g us "
                "per fragment sent, BU %.3g us per fragment received%s\n",
                cpu.ru.per_fragment_s() * 1e6, cpu.bu.per_fragment_s() * 1e6,
                cpu.shared ? " (RU and BU share a process: its CPU split by fragments)" : "");
  return buf;
}

}  // namespace evb
