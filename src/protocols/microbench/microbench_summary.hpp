#pragma once
// The micro-benchmarks' summary of a run (one-to-one, many-to-one, the
// gathers, alltoall): the common Summary (events are messages received)
// with each step's rates and what the headline averages.
// MicrobenchReport::summarize (microbench_report.cpp) fills it.
#include <vector>

#include "protocols/api/run_summary.hpp"

namespace evb {

// A micro-benchmark run's summary; its report reads it with
// summary_as<MicrobenchSummary>.
struct MicrobenchSummary : Summary {
  // Per step (shift) per-node Gb/s by receiving node and their
  // min/avg/max; local_copy: every node sent to itself (shift 0), no byte
  // crossed a driver.
  struct Step {
    int shift = 0;
    double min = 0, avg = 0, max = 0, aggregate = 0;
    std::vector<double> per_node;
    bool local_copy = false;
  };
  std::vector<Step> steps;
  // A shift scan's headline is the mean over its network shifts (1..N-1);
  // with one node only shift 0 exists and stays the headline, flagged here
  // (as is a one-to-one run at shift 0).
  bool headline_local_copy = false;
  int headline_steps = 1;  // steps the headline averages
  // A one-to-one shift scan under `evbench sim` leaves shift 0 out: a node
  // sending to itself has no route on the simulated platform, so SMPI moves
  // it at no simulated cost (docs/SCALE.md). The headline is then shift 1's.
  bool self_shift_left_out = false;
  // Data messages whose header was checked, and those whose header was not
  // (their receive slot was shared with another message in flight:
  // receive_slots < parallel). Every data message's length is checked.
  uint64_t headers_checked = 0;
  uint64_t headers_unchecked = 0;
};

}  // namespace evb
