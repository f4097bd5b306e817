#pragma once
// RunCost: what building the run's events cost each role (results.cost,
// one line of the text summary; docs/METRICS.md "Cost"). Every rank's
// command counts are summed per role (EVM, BU, RU: all BUs together, all
// RUs together) and divided by the events built; the EVM's thread CPU time
// in its handlers, likewise. A message is what a driver carried (a batch
// is one), a command one entry of it (CommandCounts).
#include <cstdint>
#include <string>
#include <vector>

#include "core/json_writer.hpp"
#include "protocols/common/command_counts.hpp"
#include "protocols/event_building/event_building_stats.hpp"
#include "protocols/event_building/rank_cpu.hpp"

namespace evb {

struct RunCost {
  uint64_t events = 0;  // built: what the figures are divided by
  bool evm = false;     // the run had an EVM (its CPU figures mean something)
  CommandCounts counts;
  uint64_t evm_cpu_ns = 0;
  uint64_t evm_cpu_stretches = 0;
  double evm_clock_overhead_ns = 0;
  uint64_t evm_loop_cpu_ns = 0;  // the EVM rank's whole loop: handlers, driver, polling
  // The RU and BU ranks' own CPU over the window, per fragment (rank_cpu.hpp).
  FragmentCpu fragment_cpu;

  // Per event (0 when no event was built).
  double per_event(uint64_t n) const { return events ? static_cast<double>(n) / events : 0.0; }
  double messages_per_event(CostRole r) const;  // sent + received
  double commands_per_event(CostRole r) const;  // sent + received
  double evm_cpu_ns_per_event() const { return per_event(evm_cpu_ns); }
};

RunCost sum_cost(const std::vector<EventBuildingStats>& ranks, uint64_t events_built);

// results.cost: {events, evm: {...}, bu: {...}, ru: {...}} (bu and ru with
// cpu_us_per_fragment and cpu_fragments when the ranks' CPU was measured).
void write_cost_json(JsonWriter& w, const RunCost& cost);

// "# cost per event: EVM 2.00 commands in 2.00 messages, 812 ns CPU; BU ...".
std::string cost_line(const RunCost& cost);

}  // namespace evb
