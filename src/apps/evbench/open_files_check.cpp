#include "apps/evbench/open_files_check.hpp"

#include <algorithm>

namespace evb {

FileNeed run_descriptor_need(const Config& config, const Topology& topo, const Capabilities& caps,
                             int served) {
  int peers = 0;  // the most any rank connects to, congestors (background:) included
  for (int r = 0; r < topo.processes(); ++r)
    peers = std::max(peers, static_cast<int>(topo.peers_of(r).size()));
  return descriptor_need(peers, caps.descriptors_per_peer, config.driver, served);
}

void check_open_files(const Config& config, const Topology& topo, const DriverFactory& driver,
                      const BootstrapFactory& boot) {
  if (!driver.query) return;
  const int served = boot.served_connections ? boot.served_connections(topo.processes()) : 0;
  ensure_open_files(run_descriptor_need(config, topo, driver.query(config), served),
                    "each rank of this run");
}

}  // namespace evb
