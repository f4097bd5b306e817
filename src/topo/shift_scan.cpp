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

std::vector<ShiftPrediction> predict_shifts(const Platform& p, const std::vector<int>& order) {
  std::vector<ShiftPrediction> out;
  const int n = static_cast<int>(order.size());
  for (int s = 1; s < n; ++s) {
    const std::vector<int> count = flows_per_link(p, order, s);
    ShiftPrediction pred;
    pred.shift = s;
    pred.per_node_gbps.assign(n, 0.0);
    for (int i = 0; i < n; ++i) {
      const int dst = (i + s) % n;
      double rate = -1;
      for (const int* l = p.route_begin(order[i], order[dst]);
           l != p.route_end(order[i], order[dst]); ++l) {
        const double share = p.links[*l].bandwidth / count[*l];
        if (rate < 0 || share < rate) rate = share;
      }
      pred.per_node_gbps[dst] = rate < 0 ? 0 : rate / 1e9;
    }
    pred.max_flows = count.empty() ? 0 : *std::max_element(count.begin(), count.end());
    if (pred.max_flows > 1)
      for (size_t l = 0; l < count.size(); ++l)
        if (count[l] == pred.max_flows) pred.worst_links.push_back(static_cast<int>(l));
    out.push_back(std::move(pred));
  }
  return out;
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
