#pragma once
// The open-file check before a run: the descriptors the busiest rank of the
// run will hold (its peers x the driver's descriptors per peer, plus the
// process's own) and the rendezvous connections the launching process
// serves, against RLIMIT_NOFILE. The soft limit is raised to the need where
// the hard limit allows (the local launcher's ranks inherit it); otherwise
// the run is refused before any rank starts, with one line naming the
// limit, the need and the fix (core/open_files.hpp).
#include "core/config.hpp"
#include "core/open_files.hpp"
#include "core/topology.hpp"
#include "drivers/api/registry.hpp"

namespace evb {

FileNeed run_descriptor_need(const Config& config, const Topology& topo, const Capabilities& caps,
                             int served);

void check_open_files(const Config& config, const Topology& topo, const DriverFactory& driver,
                      const BootstrapFactory& boot);

}  // namespace evb
