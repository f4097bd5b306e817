#pragma once
// Synthetic snapshots of any size for the monitor's size and memory tests:
// every BU, RU and matrix cell filled with counters and rates of realistic
// length (a run of hours at tens of Gb/s), so that what is measured of the
// formatted output is what a large run would give.
#include "protocols/monitor/snapshot.hpp"

namespace evb::test_support {

// Report `k` (k >= 1) of a run of `nodes` nodes: counters grow with k, the
// rates vary by unit and cell, BU 1 is excluded, RU 2 masked (when there
// are that many), two faults and two control changes.
MonitorSnapshot synthetic_snapshot(int nodes, int k);

}  // namespace evb::test_support
