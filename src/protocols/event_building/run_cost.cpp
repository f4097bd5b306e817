#include "protocols/event_building/run_cost.hpp"

#include <cstdio>

namespace evb {
namespace {

constexpr CostRole kRoles[] = {CostRole::evm, CostRole::bu, CostRole::ru};
constexpr const char* kNames[] = {"evm", "bu", "ru"};
constexpr const char* kLabels[] = {"EVM", "BU", "RU"};

}  // namespace

double RunCost::messages_per_event(CostRole r) const {
  const CommandTally& t = counts.of(r);
  return per_event(t.messages_sent + t.messages_received);
}

double RunCost::commands_per_event(CostRole r) const {
  const CommandTally& t = counts.of(r);
  return per_event(t.commands_sent + t.commands_received);
}

RunCost sum_cost(const std::vector<EventBuildingStats>& ranks, uint64_t events_built) {
  RunCost c;
  c.events = events_built;
  c.fragment_cpu = fragment_cpu(ranks);
  for (const EventBuildingStats& r : ranks) {
    c.counts += CommandCounts::from_flat(r.commands);
    if (!r.evm) continue;
    c.evm = true;
    c.evm_cpu_ns += r.evm_cpu_ns;
    c.evm_cpu_stretches += r.evm_cpu_stretches;
    c.evm_clock_overhead_ns = r.evm_clock_overhead_ns;
    c.evm_loop_cpu_ns += r.evm_loop_cpu_ns;
  }
  return c;
}

void write_cost_json(JsonWriter& w, const RunCost& cost) {
  w.begin_object("cost");
  w.value("events", cost.events);
  for (int i = 0; i < kCostRoles; ++i) {
    const CostRole role = kRoles[i];
    const CommandTally& t = cost.counts.of(role);
    w.begin_object(kNames[i]);
    w.value("messages_sent", t.messages_sent);
    w.value("commands_sent", t.commands_sent);
    w.value("messages_received", t.messages_received);
    w.value("commands_received", t.commands_received);
    w.value("messages_per_event", cost.messages_per_event(role));
    w.value("commands_per_event", cost.commands_per_event(role));
    if (role == CostRole::evm && cost.evm) {
      w.value("cpu_ns_per_event", cost.evm_cpu_ns_per_event());
      w.value("cpu_ns", cost.evm_cpu_ns);
      w.value("cpu_stretches", cost.evm_cpu_stretches);
      w.value("clock_overhead_ns", cost.evm_clock_overhead_ns);
      w.value("loop_cpu_ns_per_event", cost.per_event(cost.evm_loop_cpu_ns));
    }
    if (role != CostRole::evm && cost.fragment_cpu.measured()) {
      const RoleCpu& r = role == CostRole::ru ? cost.fragment_cpu.ru : cost.fragment_cpu.bu;
      w.value("cpu_us_per_fragment", r.per_fragment_s() * 1e6);
      w.value("cpu_fragments", r.fragments);
    }
    w.end_object();
  }
  w.end_object();
}

std::string cost_line(const RunCost& cost) {
  std::string line = "# cost per event built (sent + received):";
  char buf[160];
  for (int i = 0; i < kCostRoles; ++i) {
    const CostRole role = kRoles[i];
    if (role == CostRole::evm && !cost.evm) continue;
    // Two decimals, or two significant digits below 0.01 (MEPs of
    // thousands of events cost a small fraction of a command per event).
    const auto fmt = [](double v) { return v == 0 || v >= 0.01 ? "%.2f" : "%.2g"; };
    const std::string form = std::string("%s %s ") + fmt(cost.commands_per_event(role)) +
                             " commands in " + fmt(cost.messages_per_event(role)) + " messages";
    std::snprintf(buf, sizeof buf, form.c_str(), i ? ";" : "", kLabels[i],
                  cost.commands_per_event(role), cost.messages_per_event(role));
    line += buf;
    if (role == CostRole::evm) {
      std::snprintf(buf, sizeof buf, ", %.0f ns CPU in handlers (%.0f in its loop)",
                    cost.evm_cpu_ns_per_event(), cost.per_event(cost.evm_loop_cpu_ns));
      line += buf;
    }
  }
  return line + "\n";
}

}  // namespace evb
