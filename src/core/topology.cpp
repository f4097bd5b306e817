#include "core/topology.hpp"

#include <algorithm>
#include <set>

namespace evb {

Topology make_topology(const Config& c) {
  Topology t;
  t.nodes = c.nodes;
  const int per_node = c.layout == Layout::split ? 2 : 1;
  t.nprocs = c.nodes * per_node;
  t.ru_rank.resize(c.nodes);
  t.bu_rank.resize(c.nodes);
  for (int n = 0; n < c.nodes; ++n) {
    t.ru_rank[n] = n * per_node;
    t.bu_rank[n] = n * per_node + per_node - 1;
  }
  const bool evm = c.with_evm;
  if (evm && c.evm == EvmPlacement::dedicated) {
    t.evm_rank = t.nprocs++;
  } else if (evm) {
    t.evm_rank = 0;
  }
  t.ranks.resize(t.nprocs);
  for (int n = 0; n < c.nodes; ++n) {
    t.ranks[t.ru_rank[n]].node = n;
    t.ranks[t.ru_rank[n]].ru = n;
    t.ranks[t.bu_rank[n]].node = n;
    t.ranks[t.bu_rank[n]].bu = n;
  }
  if (t.evm_rank >= 0) {
    t.ranks[t.evm_rank].evm = true;
    if (t.evm_rank >= c.nodes * per_node) t.ranks[t.evm_rank].node = c.nodes;
  }
  int node = t.nprocs > 0 ? t.ranks.back().node + 1 : 0;
  // An entry given as a share of hosts stands on the builder's nodes, spread
  // over them; one given as a count on nodes of its own after them.
  for (size_t e = 0; e < c.background.size(); ++e) {
    const BackgroundSpec& b = c.background[e];
    for (int m = 0; m < b.ranks; ++m) {
      const int on = b.hosts_percent > 0
                         ? static_cast<int>(static_cast<int64_t>(m) * c.nodes / b.ranks)
                         : node++;
      t.congestors.push_back({t.processes(), static_cast<int>(e), m, on});
    }
  }
  t.congestors_report =
      !t.congestors.empty() && t.evm_rank >= 0 && (c.monitor.port != 0 || !c.control.empty());
  return t;
}

const CongestorRank* Topology::congestor(int rank) const {
  if (rank < nprocs || rank >= processes()) return nullptr;
  return &congestors[static_cast<size_t>(rank - nprocs)];
}

std::vector<int> Topology::entry_ranks(int entry) const {
  std::vector<int> out;
  for (const CongestorRank& k : congestors)
    if (k.entry == entry) out.push_back(k.rank);
  return out;
}

std::vector<int> Topology::peers_of(int rank) const {
  if (const CongestorRank* me = congestor(rank)) {
    std::vector<int> peers = entry_ranks(me->entry);
    peers.erase(std::find(peers.begin(), peers.end(), rank));
    if (congestors_report) peers.insert(peers.begin(), evm_rank);  // below every congestor
    return peers;
  }
  std::set<int> peers;
  const RankRoles& me = ranks.at(rank);
  for (int r = 0; r < nprocs; ++r) {
    if (r == rank) continue;
    const RankRoles& other = ranks[r];
    const bool data = (me.ru >= 0 && other.bu >= 0) || (me.bu >= 0 && other.ru >= 0);
    const bool control = me.evm || other.evm;
    if (data || control) peers.insert(r);
  }
  if (me.evm && congestors_report)
    for (const CongestorRank& k : congestors) peers.insert(k.rank);
  return {peers.begin(), peers.end()};
}

}  // namespace evb
