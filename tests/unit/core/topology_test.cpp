#include "core/topology.hpp"

#include <gtest/gtest.h>

namespace evb {
namespace {

TEST(Topology, RubuDedicatedEvm) {
  Config c;
  c.nodes = 4;
  const Topology t = make_topology(c);
  EXPECT_EQ(t.nprocs, 5);
  EXPECT_EQ(t.evm_rank, 4);
  for (int n = 0; n < 4; ++n) EXPECT_EQ(t.ru_rank[n], t.bu_rank[n]);
  EXPECT_EQ(t.peers_of(4).size(), 4u);  // EVM talks to every node
}

TEST(Topology, SplitWithRank0AndNoEvmProtocols) {
  Config c;
  c.nodes = 3;
  c.layout = Layout::split;
  c.evm = EvmPlacement::with_rank0;
  Topology t = make_topology(c);
  EXPECT_EQ(t.nprocs, 6);
  EXPECT_EQ(t.evm_rank, 0);
  EXPECT_EQ(t.ru_rank[1], 2);
  EXPECT_EQ(t.bu_rank[1], 3);
  c.protocol = "pull-noevm";
  c.with_evm = false;  // what the loader sets from the protocol's factory
  t = make_topology(c);
  EXPECT_EQ(t.evm_rank, -1);
  // An RU rank talks to BU ranks only (no RU-RU links without an EVM).
  for (int p : t.peers_of(0)) EXPECT_GE(t.ranks[p].bu, 0);
}

}  // namespace
}  // namespace evb
