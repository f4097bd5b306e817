#include "apps/evbench/memory_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "core/error.hpp"
#include "protocols/background/congestor_plan.hpp"

namespace evb {
namespace {

std::optional<int> env_int(const EnvLookup& env, const char* name) {
  const char* v = env(name);
  if (!v || !*v) return std::nullopt;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0) return std::nullopt;
  return static_cast<int>(n);
}

std::optional<int> first_of(const EnvLookup& env, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (auto v = env_int(env, n)) return v;
  return std::nullopt;
}

std::string range_text(const std::vector<int>& ranks) {
  if (ranks.empty()) return "none";
  if (ranks.size() == 1) return "rank " + std::to_string(ranks.front());
  return "ranks " + std::to_string(ranks.front()) + ".." + std::to_string(ranks.back());
}

// Ranks with the same needs share one computation (a BU's windows are the
// same for every BU; an RU's ring differs only with ru_rate_factors).
using Signature = std::tuple<int, int, bool>;
Signature signature(const Config& c, const RankRoles& r) {
  const int ru = r.ru < 0 ? -1 : (c.ru_rate_factors.empty() ? 0 : r.ru + 1);
  const int bu = r.bu < 0 ? -1 : (r.bu == 0 ? 0 : 1);
  return {ru, bu, r.evm};
}

// The node rank `r` stands for (a congestor's own, after the event builder's).
int node_of(const Topology& topo, int r) {
  return r < topo.nprocs ? topo.ranks[r].node : topo.congestor(r)->node;
}

}  // namespace

HostShare ranks_on_this_host(const Config& c, const Topology& topo, const EnvLookup& env,
                             const MemoryNeeds& needs) {
  HostShare s;
  if (c.bootstrap == "local") {  // the congestors (background:) too
    for (int r = 0; r < topo.processes(); ++r) s.ranks.push_back(r);
    return s;
  }
  const std::string of = " of " + std::to_string(topo.processes()) +
                         "; the other hosts are checked by their own ranks at start";
  const auto rank =
      first_of(env, {"EVBENCH_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"});
  const auto lrank = first_of(env, {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"});
  const auto lsize = first_of(env, {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"});
  if (rank && *rank < topo.processes() && lrank && lsize && *lrank <= *rank) {
    for (int r = *rank - *lrank; r < std::min(topo.processes(), *rank - *lrank + *lsize); ++r)
      s.ranks.push_back(r);
    s.scope = "this host's share (" + range_text(s.ranks) + of + ")";
    return s;
  }
  if (rank && *rank < topo.processes()) {
    const int node = node_of(topo, *rank);
    for (int r = 0; r < topo.processes(); ++r)
      if (node_of(topo, r) == node) s.ranks.push_back(r);
    s.scope =
        "this host's share (node " + std::to_string(node) + ": " + range_text(s.ranks) + of + ")";
    return s;
  }
  // No launcher: the node that needs the most, if it were this host.
  std::map<int, std::vector<int>> by_node;
  for (int r = 0; r < topo.processes(); ++r) by_node[node_of(topo, r)].push_back(r);
  uint64_t most = 0;
  for (const auto& [node, ranks] : by_node) {
    const uint64_t t = host_memory_need(c, topo, ranks, needs).total;
    if (s.ranks.empty() || t > most) most = t, s.ranks = ranks;
  }
  s.scope = "the share of the node needing the most (" + range_text(s.ranks) + of +
            "), if this host were that node";
  return s;
}

HostNeed host_memory_need(const Config& c, const Topology& topo, const std::vector<int>& ranks,
                          const MemoryNeeds& needs) {
  std::map<Signature, std::vector<MemoryNeed>> seen;
  std::map<std::string, HostNeed::Part> parts;
  std::vector<std::string> order;
  for (int r : ranks) {
    std::vector<MemoryNeed> congestor;
    const std::vector<MemoryNeed>* of_rank = &congestor;
    if (topo.congestor(r)) {
      congestor = congestor_memory(c, topo, r);
    } else {
      const RankRoles& roles = topo.ranks.at(r);
      auto [it, fresh] = seen.try_emplace(signature(c, roles));
      if (fresh) it->second = needs(c, roles);
      of_rank = &it->second;
    }
    for (const MemoryNeed& m : *of_rank) {
      auto [p, added] = parts.try_emplace(m.what);
      if (added) {
        p->second.what = m.what;
        p->second.keys = m.keys;
        p->second.each = m.bytes;
        order.push_back(m.what);
      } else if (p->second.each != m.bytes) {
        p->second.each = 0;
      }
      p->second.total += m.bytes;
      ++p->second.count;
    }
  }
  HostNeed need;
  for (const auto& w : order) {
    need.parts.push_back(parts[w]);
    need.total += parts[w].total;
  }
  std::stable_sort(need.parts.begin(), need.parts.end(),
                   [](const auto& a, const auto& b) { return a.total > b.total; });
  return need;
}

std::optional<uint64_t> mem_available_bytes(const std::string& meminfo) {
  std::istringstream in(meminfo);
  for (std::string line; std::getline(in, line);) {
    unsigned long long kib = 0;
    char unit[8] = {};
    if (std::sscanf(line.c_str(), "MemAvailable: %llu %7s", &kib, unit) >= 1)
      return static_cast<uint64_t>(kib) * 1024;
  }
  return std::nullopt;
}

std::string human_bytes(uint64_t bytes) {
  static constexpr std::pair<uint64_t, const char*> units[] = {
      {1ull << 40, "TiB"}, {1ull << 30, "GiB"}, {1ull << 20, "MiB"}, {1ull << 10, "KiB"}};
  for (auto [n, name] : units) {
    if (bytes < n) continue;
    char buf[64];
    const double v = static_cast<double>(bytes) / static_cast<double>(n);
    std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : "%.1f", v);
    std::string text = buf;
    if (text.ends_with(".0")) text.resize(text.size() - 2);  // 16.02 GiB reads "16 GiB"
    return text + " " + name;
  }
  return std::to_string(bytes) + " B";
}

std::string memory_shortfall(const HostNeed& need, uint64_t available, const HostShare& share) {
  if (need.total <= available || need.parts.empty()) return "";
  std::string parts;
  for (const auto& p : need.parts) {
    parts += parts.empty() ? "" : " + ";
    if (p.each)
      parts += std::to_string(p.count) + " × " + human_bytes(p.each) + " " + p.what;
    else
      parts += std::to_string(p.count) + " " + p.what + " " + human_bytes(p.total);
  }
  const HostNeed::Part& top = need.parts.front();
  std::string lower = top.keys;
  if (share.scope.empty() && lower.find("nodes") == std::string::npos) lower += " or nodes";
  const auto comma = lower.rfind(", ");
  if (comma != std::string::npos) lower.replace(comma, 2, " or ");
  const std::string where =
      share.scope.empty()
          ? "on this host (" + std::to_string(share.ranks.size()) + " ranks, local bootstrap)"
          : "for " + share.scope;
  return top.keys.substr(0, top.keys.find(',')) + ": " + human_bytes(need.total) + " needed " +
         where + ": " + parts + "; " + human_bytes(available) +
         " available (MemAvailable of /proc/meminfo); lower " + lower;
}

void check_host_memory(const Config& c, const Topology& topo, const MemoryNeeds& needs) {
  std::ifstream in("/proc/meminfo");
  if (!in) return;
  std::ostringstream text;
  text << in.rdbuf();
  const auto available = mem_available_bytes(text.str());
  if (!available) return;
  const HostShare share = ranks_on_this_host(
      c, topo, [](const char* n) { return std::getenv(n); }, needs);
  const std::string why =
      memory_shortfall(host_memory_need(c, topo, share.ranks, needs), *available, share);
  if (!why.empty()) throw ConfigError(why);
}

}  // namespace evb
