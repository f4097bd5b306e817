#include "drivers/mpi/mpi_check.hpp"

#include "core/placement.hpp"
#include "core/topology.hpp"
#include "drivers/mpi/mpi_env.hpp"

namespace evb::mpi {

std::vector<std::string> check_mpi_options(const Config& config, OptionCheck /*scope*/) {
  if (config.bootstrap == "mpi" || launcher_world_size() >= 0) return {};
  const std::string n = std::to_string(make_topology(config).processes());
  return {"driver: mpi needs ranks started by mpirun (or srun), not the " + config.bootstrap +
          " bootstrap: run `" + mpirun_with_binding(n, config.bind) +
          " evbench run CONFIG --set bootstrap=mpi` (" + n + " processes for this configuration)"};
}

}  // namespace evb::mpi
