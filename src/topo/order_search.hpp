#pragma once
// Proposing a rank order (and, when fewer ranks than hosts are wanted, a node
// selection) that lowers the barrel shift's link conflicts.
//
// 1. Selection (select = true and nodes < hosts): whole leaves first, fullest
//    leaves first, so as few ranks as possible leave their leaf.
// 2. Candidate orders, each scored by the full scan: the given order; the
//    cabling order (leaf, port); and "by leaf, then by the uplink the other
//    leaves' tables use to reach each host" (for d-mod-k routing the two
//    agree; for irregular routing the second lines hosts up with the uplink
//    they are reached through most often).
// 3. Local improvement of the best candidate: seeded swaps of two ranks
//    (half of them taking a rank that sends over the worst link of a worst
//    step), each scored incrementally and kept unless the score gets worse.
// The score is (sum over shifts of max(1, max flows), max flows, sum over
// shifts and ISLs of flows squared), compared in that order; the first is
// the barrel's time in conflict-free step units.
#include <cstdint>
#include <string>
#include <vector>

#include "topo/platform.hpp"
#include "topo/shift_scan.hpp"

namespace evb::topo {

struct SearchOptions {
  int nodes = 0;        // ranks wanted (0: as many as `start` has)
  bool select = false;  // may pick other hosts than the first `nodes` of `start`
  uint64_t seed = 1;
  // Swaps tried; -1: 40 * nodes, at most 2e6 / nodes (each costs O(nodes)),
  // at least 1000.
  int64_t iterations = -1;
};

struct OrderProposal {
  std::vector<int> order;  // host index per rank
  ShiftScan scan;
  std::string method;  // which candidate won, and what the swaps did
  int64_t swaps_tried = 0;
  int64_t swaps_kept = 0;
};

// `start`: host indices (the user's order, or the platform's host order).
OrderProposal propose_order(const Platform& platform, const std::vector<int>& start,
                            const SearchOptions& options);

}  // namespace evb::topo
