// Counting flows per inter-switch link at every barrel-shift step.
#include "topo/shift_scan.hpp"

#include <algorithm>

namespace evb::topo {

std::vector<int> flows_per_link(const Platform& p, const std::vector<int>& order, int shift) {
  std::vector<int> count(p.links.size(), 0);
  const int n = static_cast<int>(order.size());
  for (int i = 0; i < n; ++i) {
    const int dst = order[(i + shift) % n];
    for (const int* l = p.route_begin(order[i], dst); l != p.route_end(order[i], dst); ++l)
      ++count[*l];
  }
  return count;
}

ShiftScan scan_barrel(const Platform& p, const std::vector<int>& order) {
  ShiftScan scan;
  const int n = static_cast<int>(order.size());
  scan.nodes = n;
  std::vector<char> isl(p.links.size());
  for (size_t l = 0; l < p.links.size(); ++l) isl[l] = p.inter_switch(static_cast<int>(l));
  std::vector<int> count(p.links.size(), 0);
  for (int s = 1; s < n; ++s) {
    std::fill(count.begin(), count.end(), 0);
    StepLoad step;
    step.shift = s;
    for (int i = 0; i < n; ++i) {
      const int src = order[i], dst = order[(i + s) % n];
      bool crosses = false;
      for (const int* l = p.route_begin(src, dst); l != p.route_end(src, dst); ++l) {
        if (!isl[*l]) continue;
        crosses = true;
        const int c = ++count[*l];
        if (c == 1) ++step.loaded_links;
        if (c == 2) ++step.conflicted_links;
        if (c > step.max_flows) {
          step.max_flows = c;
          step.worst_link = *l;
        }
      }
      step.crossing_flows += crosses;
    }
    if (step.max_flows > scan.max_flows) {
      scan.max_flows = step.max_flows;
      scan.worst_shift = s;
    }
    scan.step_units += std::max(1, step.max_flows);
    scan.steps.push_back(step);
  }
  return scan;
}

}  // namespace evb::topo
