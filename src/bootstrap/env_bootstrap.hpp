#pragma once
// The `env` bootstrap: this process is one rank of a run started by someone
// else (srun, mpirun, a shell loop). Rank and size come from the environment;
// rank 0 serves the rendezvous named by EVBENCH_RENDEZVOUS from a thread.
//
// Precedence: EVBENCH_RANK/EVBENCH_SIZE, SLURM_PROCID/SLURM_NTASKS,
// OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE, PMI_RANK/PMI_SIZE; none set means
// a single rank. Run token: EVBENCH_RUN_ID, required when
// size > 1 (a secret the launcher shares; no guessable default).
#include <chrono>
#include <functional>
#include <string>

#include "core/config.hpp"
#include "drivers/api/registry.hpp"

namespace evb::boot {

struct EnvSettings {
  int rank = 0;
  int size = 1;
  std::string size_var;  // where size came from, e.g. "SLURM_NTASKS"; empty = nowhere
  std::string host;      // rendezvous host; empty when EVBENCH_RENDEZVOUS is unset
  int port = 0;
  std::string token;
  // Client side: keep retrying the rendezvous this long (rank 0 may start late).
  std::chrono::milliseconds connect_timeout{30000};
};

// Returns the value of a variable or nullptr (::getenv by default).
using EnvLookup = std::function<const char*(const char*)>;

// Throws ConfigError naming the variable for malformed or missing values.
EnvSettings parse_env_settings(const EnvLookup& lookup);

// ConfigError unless settings.size == nprocs.
void check_env_size(const EnvSettings& settings, const Config& config, int nprocs);

// Runs this process's rank; returns its exit code.
int launch_env(const Config& config, int nprocs, const WorkerFn& worker,
               const EnvSettings& settings);

}  // namespace evb::boot
