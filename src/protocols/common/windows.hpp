#pragma once
// Window advertisement for data_path write: every BU's registered windows,
// as write targets for the RUs of this rank. Each rank contributes the packed
// key of its BU memory (empty when it hosts no BU) through the bootstrap,
// once at set-up; keys of peers are unpacked once by the driver, this rank's
// own windows are written by the engine's loopback.
#include <vector>

#include "core/topology.hpp"
#include "drivers/api/bootstrap.hpp"
#include "protocols/common/engine.hpp"

namespace evb {

// Collective over every rank of the run. `bu_windows` is this rank's BU
// memory registration (null: no BU here). Returns one target per BU index.
std::vector<WriteTarget> exchange_windows(Bootstrap& boot, Driver& driver, const Topology& topo,
                                          const Registration* bu_windows);

}  // namespace evb
