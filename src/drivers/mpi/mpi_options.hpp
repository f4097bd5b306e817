#pragma once
// The mpi driver's run-time parameters (driver_options.*): the KeySpecs for
// validation and docs, and the struct the same table fills.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"
#include "drivers/common/chassis_options.hpp"
#include "drivers/mpi/mpi_requests.hpp"

namespace evb::mpi {

// What wait() does (driver_options.wait).
enum class WaitMode : uint8_t {
  none,     // return at once: the engine polls (MPI_Testsome) while idle
  waitany,  // block in MPI_Waitany until an operation in flight finishes
};

// Filled by MpiOptions::from(): the option table (mpi_options.cpp) holds
// every default; an MpiOptions{} does not (MpiOptions::from(nullptr) does).
struct MpiOptions : ChassisOptions {
  bool sync_send = false;   // MPI_Issend: completion means "matched by the receiver"
  size_t max_requests = 0;  // operations in flight at once
  PollMethod poll_method = PollMethod::testsome;
  WaitMode wait = WaitMode::none;
  // waitany: block only for waits at least this long (no engine timer due
  // sooner); shorter ones sleep one 1-us poll interval, so the engine polls
  // up to its timer.
  double wait_min_timeout_s = 0;
  // Any-source receives of one tag handed to MPI at once (0: all); the
  // others wait here, in posting order (SMPI: every MPI_Waitany/Testany
  // looks at every request posted).
  size_t any_source_depth = 0;

  // The defaults, then config->driver_options (null: defaults only). Throws
  // ConfigError naming the key on a bad value.
  static MpiOptions from(const Config* config);
};

// The driver_options.* keys of the mpi driver.
const std::vector<KeySpec>& mpi_option_keys();

}  // namespace evb::mpi
