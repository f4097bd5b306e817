#include "core/placement.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"

namespace evb {

// The binding order: each CPU's thread index within its physical core
// (0 for the first allowed thread of a core, 1 for its sibling, ...), then
// package, core id and CPU number. Sorting by that puts one thread of
// every core first, package by package, like Open MPI's --map-by core.
std::vector<int> placement_order(const std::vector<CpuInfo>& cpus) {
  std::vector<CpuInfo> sorted = cpus;
  std::sort(sorted.begin(), sorted.end(),
            [](const CpuInfo& a, const CpuInfo& b) { return a.cpu < b.cpu; });
  std::map<std::pair<int, int>, int> seen;  // (package, core) -> threads so far
  std::vector<std::tuple<int, int, int, int>> keyed;
  for (const CpuInfo& c : sorted)
    keyed.emplace_back(seen[{c.package, c.core}]++, c.package, c.core, c.cpu);
  std::sort(keyed.begin(), keyed.end());
  std::vector<int> order;
  for (const auto& k : keyed) order.push_back(std::get<3>(k));
  return order;
}

std::vector<int> choose_cpus(const std::vector<CpuInfo>& cpus, int nranks) {
  const std::vector<int> order = placement_order(cpus);
  std::vector<int> out;
  if (order.empty()) return out;
  for (int r = 0; r < nranks; ++r) out.push_back(order[static_cast<size_t>(r) % order.size()]);
  return out;
}

std::string cpu_list(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

namespace {

// What the ranks' CPU sets show, before who did it and what was asked.
struct Observed {
  int ranks = 0;         // ranks that reported their CPUs
  int single = 0;        // of them, on one CPU
  size_t slots = 0;      // distinct (host, CPU) pairs of the single ones
  bool same_set = true;  // every rank the same CPU set
  size_t fewest = 0, most = 0;
  std::vector<int> all;  // every CPU any rank may use
};

Observed observe(const std::vector<std::string>& hosts, const std::vector<std::vector<int>>& cpus) {
  Observed o;
  std::set<std::pair<std::string, int>> slots;
  const std::vector<int>* first = nullptr;
  for (size_t r = 0; r < cpus.size(); ++r) {
    if (cpus[r].empty()) continue;
    const std::string host = r < hosts.size() ? hosts[r] : "";
    ++o.ranks;
    if (cpus[r].size() == 1) {
      ++o.single;
      slots.insert({host, cpus[r][0]});
    }
    o.all.insert(o.all.end(), cpus[r].begin(), cpus[r].end());
    if (!first) first = &cpus[r];
    o.same_set = o.same_set && cpus[r] == *first;
    o.fewest = o.fewest == 0 ? cpus[r].size() : std::min(o.fewest, cpus[r].size());
    o.most = std::max(o.most, cpus[r].size());
  }
  o.slots = slots.size();
  return o;
}

}  // namespace

std::string describe_placement(Bind bind, const std::string& bootstrap,
                               const std::vector<std::string>& hosts,
                               const std::vector<std::vector<int>>& cpus) {
  const Observed o = observe(hosts, cpus);
  if (o.ranks == 0) return "unknown (no rank reported its CPUs)";
  const std::string list = "cpus " + cpu_list(o.all);
  const bool ours = bootstrap == "local";
  // Under the local bootstrap with bind none nobody bound them: one CPU is
  // all the process was allowed (taskset, a cgroup).
  if (ours && bind == Bind::none && o.single == o.ranks)
    return "unbound (the process may use one CPU only: " + list + ")";
  std::string line;
  if (o.single == o.ranks) {
    line = std::string("bound by ") + (ours && bind == Bind::core ? "evbench" : "the launcher") +
           ", one CPU per rank (" + list;
    if (o.slots < static_cast<size_t>(o.ranks))
      line += "; " + std::to_string(o.ranks) + " ranks on " + std::to_string(o.slots) +
              " CPUs: wrapped";
    line += ")";
  } else if (o.single == 0) {
    line = o.same_set ? "unbound (each rank may run on " + list + ")"
                      : "unbound (ranks may run on " + std::to_string(o.fewest) + " to " +
                            std::to_string(o.most) + " CPUs each, " + list + ")";
  } else {
    line = "partly bound: " + std::to_string(o.single) + " of " + std::to_string(o.ranks) +
           " ranks on one CPU (" + list + ")";
  }
  std::vector<int> distinct = o.all;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const bool more_ranks = static_cast<size_t>(o.ranks) > distinct.size();
  if (bind == Bind::core && o.single < o.ranks)
    line += ours && more_ranks
                ? "; bind: core not done: " + std::to_string(o.ranks) + " ranks on " +
                      std::to_string(distinct.size()) +
                      " CPUs (ranks pinned two to a CPU stall one another; the kernel spreads them)"
            : ours
                ? "; bind: core asked, not done"
                : "; bind: core, but the launcher did not bind every rank (mpirun " +
                      mpirun_bind_flags(Bind::core) + ", srun " + srun_bind_flags(Bind::core) + ")";
  if (bind == Bind::none && o.single > 0 && !ours)
    line += "; bind: none, but the launcher bound ranks (mpirun " + mpirun_bind_flags(Bind::none) +
            ", srun " + srun_bind_flags(Bind::none) + ")";
  return line;
}

std::string mpirun_bind_flags(Bind bind) {
  return bind == Bind::core ? "--map-by core --bind-to core:overload-allowed" : "--bind-to none";
}

std::string mpirun_with_binding(const std::string& nprocs, Bind bind) {
  return "mpirun -np " + nprocs + " " + mpirun_bind_flags(bind);
}

std::string srun_bind_flags(Bind bind) {
  return bind == Bind::core ? "--cpu-bind=cores" : "--cpu-bind=none";
}

}  // namespace evb
