// The platform's cabling written as ibnetdiscover text (ibsim's net file):
// one block per node, every cable from both ends, rates as width x speed.
#include "topo/ibnet_writer.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/error.hpp"
#include "topo/fat_tree.hpp"

namespace evb::topo {
namespace {

Platform small_tree(double switch_bandwidth) {
  FatTreeSpec s;
  s.leaves = 2;
  s.ports = 4;
  s.uplinks = 4;
  s.spines = 2;
  s.populated = {4, 3};
  s.switch_bandwidth = switch_bandwidth;
  Platform p = make_fat_tree(s, "test");
  p.finish();
  return p;
}

TEST(IbnetWriter, EveryNodeHasABlockAndEveryCableTwoPortLines) {
  const Platform p = small_tree(200e9);
  std::istringstream in(ibnetdiscover_text(p));
  std::string line;
  int cas = 0, switches = 0, ports = 0, hdr = 0, edr = 0;
  while (std::getline(in, line)) {
    cas += line.rfind("Ca\t", 0) == 0;
    switches += line.rfind("Switch\t", 0) == 0;
    if (line.rfind("[", 0) == 0) {
      ++ports;
      hdr += line.find("4xHDR") != std::string::npos;
      edr += line.find("4xEDR") != std::string::npos;
    }
  }
  int host_cables = p.host_count(), switch_cables = 0;
  for (size_t l = 0; l < p.links.size(); ++l) switch_cables += p.inter_switch(static_cast<int>(l));
  switch_cables /= 2;  // two directional links per cable
  EXPECT_EQ(cas, 7);
  EXPECT_EQ(switches, static_cast<int>(p.switches.size()));
  EXPECT_EQ(ports, 2 * (host_cables + switch_cables));
  EXPECT_EQ(hdr, 2 * switch_cables);
  EXPECT_EQ(edr, 2 * host_cables);
}

TEST(IbnetWriter, ARateNoInfiniBandLinkHasIsAnError) {
  const Platform p = small_tree(30e9);
  try {
    ibnetdiscover_text(p);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("no InfiniBand width x speed"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace evb::topo
