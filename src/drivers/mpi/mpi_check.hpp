#pragma once
// The mpi driver's start conditions checked before anything is forked
// (DriverEntry::check_options).
#include <string>
#include <vector>

#include "core/config.hpp"
#include "drivers/api/registry.hpp"

namespace evb::mpi {

// driver mpi needs ranks a launcher (mpirun, srun) started: without one and
// without bootstrap mpi, every forked rank would fail the same way.
// Judged the same under both OptionChecks: without a launcher, bootstrap
// local or env with driver mpi cannot start.
std::vector<std::string> check_mpi_options(const Config& config, OptionCheck scope);

}  // namespace evb::mpi
