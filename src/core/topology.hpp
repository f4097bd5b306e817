#pragma once
// Which units each rank hosts, derived from the configuration alone.
//
// layout rubu: rank n hosts RU n and BU n (the paper's PPN=1).
// layout split: rank 2n hosts RU n, rank 2n+1 hosts BU n (PPN=2, node-major,
//   so block distribution puts both of a node's ranks on that node).
// evm dedicated: one extra, last rank; with-rank0: the EVM lives on rank 0.
// Protocols without an EVM (pull-noevm, micro-benchmarks) get no EVM.
// FUs live in their BU's process (fu_per_bu consumers fed by a local queue).
// Congestors (`background:`) are extra ranks after all of these, entry by
// entry, each standing for a node of its own (`ranks: 3`) or for one of the
// builder's nodes (`ranks: 50%`: spread over them): a launcher places them
// by the same rules as the event builder's ranks. They talk only to the ranks of
// their own entry, and to the EVM's rank when the run has a monitor or a
// `control:` list (their rates to it, its start and stop to them).
#include <vector>

#include "core/config.hpp"

namespace evb {

struct RankRoles {
  int node = 0;  // which node this rank stands for
  int ru = -1;   // RU index hosted here, or -1
  int bu = -1;   // BU index hosted here, or -1
  bool evm = false;
};

// One congestor rank: which `background` entry, which member of it.
struct CongestorRank {
  int rank = 0;
  int entry = 0;
  int member = 0;
  int node = 0;
};

struct Topology {
  int nodes = 0;
  int nprocs = 0;            // the event builder's ranks, 0 .. nprocs-1
  int evm_rank = -1;         // -1: no EVM
  std::vector<int> ru_rank;  // RU index -> rank
  std::vector<int> bu_rank;  // BU index -> rank
  std::vector<RankRoles> ranks;
  std::vector<CongestorRank> congestors;  // ranks nprocs .. processes()-1
  bool congestors_report = false;         // congestors talk to the EVM's rank (monitor, control)

  // Every process of the run: the event builder's and the congestors.
  int processes() const { return nprocs + static_cast<int>(congestors.size()); }
  // The congestor `rank` is, or nullptr for a rank of the event builder.
  const CongestorRank* congestor(int rank) const;
  // The ranks of `background` entry `entry`, by member.
  std::vector<int> entry_ranks(int entry) const;

  // Ranks `rank` exchanges messages with (symmetric, excludes itself).
  std::vector<int> peers_of(int rank) const;
};

// The ranks of a run: RUs and BUs by `layout`, and an EVM rank (placed by
// `evm`) when the protocol has one (config.with_evm), then the congestors.
Topology make_topology(const Config& config);

}  // namespace evb
