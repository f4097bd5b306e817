#pragma once
// The barrel-shift link-conflict analysis (the DAQPIPE paper's figures 6 and
// 8): at shift s rank i sends to rank (i + s) mod N; every flow follows its
// route, and a directional inter-switch link (ISL) carrying k flows gives
// each of them 1/k of its bandwidth, so a step lasts as long as its most
// loaded link (max(1, k) units when host links are as fast as ISLs).
#include <cstdint>
#include <string>
#include <vector>

#include "topo/platform.hpp"

namespace evb::topo {

struct StepLoad {
  int shift = 0;
  int max_flows = 0;         // most flows on one ISL (0: no flow leaves its leaf)
  int worst_link = -1;       // an ISL carrying max_flows, -1 when none
  int crossing_flows = 0;    // flows using at least one ISL
  int loaded_links = 0;      // ISLs with at least one flow
  int conflicted_links = 0;  // ISLs with more than one flow
};

struct ShiftScan {
  int nodes = 0;
  std::vector<StepLoad> steps;  // shifts 1 .. nodes - 1
  int max_flows = 0;            // over all steps
  int worst_shift = 0;          // first shift reaching max_flows (0: none)
  int64_t step_units = 0;       // sum over steps of max(1, max_flows)
  // Barrel throughput relative to conflict-free steps: (nodes-1)/step_units.
  double efficiency() const {
    return step_units ? static_cast<double>(nodes - 1) / static_cast<double>(step_units) : 1.0;
  }
};

// What the one-to-one shift scan should measure at one shift, from the
// platform alone: every flow (rank i -> rank (i + shift) mod N) gets, on
// each link of its route, the link's bandwidth / the flows on it, and runs
// at the smallest of those shares (the paper's 1/max-flows rule with the
// platform's link rates).
struct ShiftPrediction {
  int shift = 0;
  std::vector<double> per_node_gbps;  // by receiving rank: the rate of the flow it receives
  int max_flows = 0;                  // most flows on one link, host links included
  std::vector<int> worst_links;       // the links carrying max_flows (empty when it is 1)
};

// `order[i]` is the host index rank i runs on (distinct hosts).
ShiftScan scan_barrel(const Platform& platform, const std::vector<int>& order);
// Flows on every directional link (all links, host links included) at one shift.
std::vector<int> flows_per_link(const Platform& platform, const std::vector<int>& order, int shift);
// Shifts 1 .. N-1 (shift 0 is a local copy, no route).
std::vector<ShiftPrediction> predict_shifts(const Platform& platform,
                                            const std::vector<int>& order);

}  // namespace evb::topo
