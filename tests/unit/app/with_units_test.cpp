// A failure the bootstrap reports about a peer names the peer's units, as
// the drivers' errors do (with_units).
#include <gtest/gtest.h>

#include "apps/evbench/worker.hpp"
#include "core/topology.hpp"

namespace evb {
namespace {

TEST(WithUnits, NamesThePeersUnitsOnce) {
  Config c;
  c.nodes = 4;
  const Topology t = make_topology(c);
  EXPECT_EQ(with_units("bootstrap: rank 2 disappeared (connection closed)", 2, t),
            "bootstrap: rank 2 (RU 2, BU 2) disappeared (connection closed)");
  // Already named, another rank, out of range: unchanged.
  EXPECT_EQ(with_units("x rank 2 (RU 2, BU 2) gone", 2, t), "x rank 2 (RU 2, BU 2) gone");
  EXPECT_EQ(with_units("rank 4: rank 2 gone", 2, t), "rank 4: rank 2 (RU 2, BU 2) gone");
  EXPECT_EQ(with_units("rank 21 gone", 2, t), "rank 21 gone");
  EXPECT_EQ(with_units("rank 2 gone", 99, t), "rank 2 gone");
}

}  // namespace
}  // namespace evb
