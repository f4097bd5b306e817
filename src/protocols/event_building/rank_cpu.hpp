#pragma once
// RankCpu: what the RU and BU ranks' own CPU cost per fragment
// (results.rank_cpu, results.cost.ru / .bu `cpu_us_per_fragment`;
// docs/METRICS.md "CPU per fragment"), from each rank's process CPU time
// over the measured window and the fragments it sent and received in it
// (EventBuildingStats cpu_*, read by WindowCpu). A rank that hosts an RU
// and a BU (layout rubu) has one CPU time for both: it is shared between
// them in proportion to their fragments, so each role's figure is that
// rank's CPU per fragment handled. Ranks that took no readings (`evbench
// sim`) are left out: a simulated run has none.
#include <cstdint>
#include <string>
#include <vector>

#include "core/json_writer.hpp"
#include "protocols/event_building/event_building_stats.hpp"

namespace evb {

struct RankCpu {
  int rank = 0;
  int ru = -1, bu = -1;
  bool evm = false;  // the EVM runs in this process too (its CPU is in the figures)
  double window_s = 0, user_s = 0, system_s = 0;
  uint64_t fragments_sent = 0, fragments_received = 0;
  // (user + system) / (sent + received); 0 without fragments.
  double per_fragment_s() const;
};

// One role's figure over its ranks: the CPU share of the role over its
// fragments in the window.
struct RoleCpu {
  double cpu_s = 0;
  uint64_t fragments = 0;
  double per_fragment_s() const { return fragments ? cpu_s / static_cast<double>(fragments) : 0; }
};

struct FragmentCpu {
  std::vector<RankCpu> ranks;  // by rank, the measured ones
  RoleCpu ru, bu;
  bool measured() const { return !ranks.empty(); }
  // Some rank hosts both roles (their figures are then one CPU shared).
  bool shared = false;
};

// From every rank's own part, in rank order.
FragmentCpu fragment_cpu(const std::vector<EventBuildingStats>& ranks);

// "rank_cpu": [...] into the open results object (nothing when not measured).
void write_rank_cpu(JsonWriter& w, const FragmentCpu& cpu);

// "# CPU per fragment (the ranks' own, in the window): RU 61.2 us, BU 58.4 us
// (...)"; empty when not measured.
std::string fragment_cpu_line(const FragmentCpu& cpu);

}  // namespace evb
