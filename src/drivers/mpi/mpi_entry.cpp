// The mpi driver's entry: probe and create (plugin_entry.hpp).
#include <memory>

#include "core/error.hpp"
#include "core/placement.hpp"
#include "drivers/api/plugin_entry.hpp"
#include "drivers/mpi/mpi_check.hpp"
#include "drivers/mpi/mpi_driver.hpp"
#include "drivers/mpi/mpi_env.hpp"
#include "drivers/mpi/mpi_transport.hpp"

namespace evb {
namespace {

std::string how_to_launch(const DriverContext& ctx) {
  std::string n = ctx.size > 0 ? std::to_string(ctx.size) : "N";
  return "run `" + mpirun_with_binding(n, ctx.config ? ctx.config->bind : Bind::core) +
         " evbench run CFG --set bootstrap=mpi` (" + n + " = processes for this config)";
}

std::unique_ptr<Driver> create_mpi_driver(const DriverContext& ctx) {
  if (!mpi::MpiEnv::initialized()) {
    int launched = mpi::launcher_world_size();
    if (launched < 0) {
      throw ConfigError("driver mpi needs ranks started by mpirun: " + how_to_launch(ctx));
    }
    if (launched > 0 && launched != ctx.size) {
      throw ConfigError("driver mpi: mpirun started " + std::to_string(launched) +
                        " processes but this run has " + std::to_string(ctx.size) + " ranks; " +
                        how_to_launch(ctx));
    }
    mpi::MpiEnv::ensure();
  }
  int world = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  if (world != ctx.size) {
    throw ConfigError("driver mpi: MPI_COMM_WORLD has " + std::to_string(world) +
                      " ranks but this run has " + std::to_string(ctx.size) + "; " +
                      how_to_launch(ctx));
  }
  return std::make_unique<mpi::MpiDriver>(MPI_COMM_WORLD, ctx.rank,
                                          mpi::MpiOptions::from(ctx.config));
}

// MPI_Get_library_version works before MPI_Init. Initialising MPI only to
// report the thread level is not cheap (Open MPI singleton init starts a
// runtime daemon), so the probe reports the requested level unless MPI is
// already up in this process.
DriverProbe probe_mpi() {
  DriverProbe p;
  p.can_run = true;
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  if (MPI_Get_library_version(version, &len) == MPI_SUCCESS) {
    std::string v(version, static_cast<size_t>(len));
    auto cut = v.find_first_of(",\n");
    p.library_version = v.substr(0, cut);
    while (!p.library_version.empty() && p.library_version.back() == ' ') {
      p.library_version.pop_back();
    }
  }
  int major = 0;
  int minor = 0;
  MPI_Get_version(&major, &minor);
  int level = mpi::MpiEnv::thread_level();
  p.details = "MPI " + std::to_string(major) + "." + std::to_string(minor) + ", thread level: " +
              (level >= 0 ? std::string("provided ") + mpi::MpiEnv::thread_level_name(level)
                          : std::string("requests MPI_THREAD_FUNNELED at start-up"));
  if (mpi::launcher_world_size() < 0) {
    p.details += "; needs mpirun (bootstrap mpi)";
  }
  // Variants by installed component (docs/drivers/mpi.md "Variant names").
  const mpi::InstalledVariants installed = mpi::installed_variants();
  p.variants_usable = installed.usable;
  p.variants_not_here = installed.not_here;
  return p;
}

}  // namespace

const DriverEntry* evb_driver_entry_mpi() {
  static const DriverEntry entry{
      .probe = probe_mpi, .create = create_mpi_driver, .check_options = mpi::check_mpi_options};
  return &entry;
}

}  // namespace evb
