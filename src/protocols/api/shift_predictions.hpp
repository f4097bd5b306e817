#pragma once
// A one-to-one shift scan's predicted rates from topology.platform, by
// shift, over the hosts the nodes ran on: the app computes them
// (apps/evbench/report.cpp), the micro-benchmark report shows them beside
// the measured ones (the table's predicted columns, results.shifts[k].predicted).
#include <vector>

#include "topo/platform.hpp"
#include "topo/shift_scan.hpp"

namespace evb {

struct ShiftPredictions {
  topo::Platform platform;
  std::vector<topo::ShiftPrediction> shifts;  // shifts[k - 1] is shift k
  const topo::ShiftPrediction* at(int shift) const {
    return shift >= 1 && shift <= static_cast<int>(shifts.size()) ? &shifts[shift - 1] : nullptr;
  }
};

}  // namespace evb
