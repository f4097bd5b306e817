#include "core/topology.hpp"

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
  return t;
}

std::vector<int> Topology::peers_of(int rank) const {
  std::set<int> peers;
  const RankRoles& me = ranks.at(rank);
  for (int r = 0; r < nprocs; ++r) {
    if (r == rank) continue;
    const RankRoles& other = ranks[r];
    const bool data = (me.ru >= 0 && other.bu >= 0) || (me.bu >= 0 && other.ru >= 0);
    const bool control = me.evm || other.evm;
    if (data || control) peers.insert(r);
  }
  return {peers.begin(), peers.end()};
}

}  // namespace evb
