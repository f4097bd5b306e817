#pragma once
// `evbench sim`: the configuration run over a simulated platform. Writes the
// platform's routes file, a hostfile and the resolved configuration into a
// private temporary directory, then runs smpirun on evbench-smpi (the SMPI
// build, see docs/SCALE.md) with the SimGrid options contention studies need;
// that rank 0 reports as `run` does, with results.simulated set.
#include <string>
#include <vector>

#include "core/config.hpp"
#include "protocols/api/protocol.hpp"

namespace evb {

struct SimRequest {
  std::string platform;  // --platform FILE (YAML description or fabric dump)
  std::string order;     // --order FILE, empty: the platform's host order
  std::string json;      // --json FILE
  bool quiet = false;
  bool unit_factors = false;  // fluid: --smpi-factors one (SMPI's bw/lat factors at 1)
  // credit: --calibrate MEASURED.json, repeated: the host links' run first,
  // then the switch links' (fit, then predict)
  std::vector<std::string> calibrate;
  std::string calibration;        // credit: --calibration FILE (written by --calibrate, or applied)
  std::vector<std::string> argv;  // the command line (credit: for the results document)
};

// The directory holding the SMPI build (bin/evbench-smpi,
// lib/libevbench-simplatform.so): $EVBENCH_SMPI_BUILD when set (and then only
// it); else, relative to this evbench, the installed one
// (<prefix>/libexec/evbench, cmake/EvbenchInstall.cmake) or build-sim next to
// the build dir it came from. Throws ConfigError (exit 2) naming every
// directory tried and how to build one when none holds it.
std::string find_smpi_build(const std::string& self_exe);

// The simulation always runs the mpi driver and bootstrap (what SMPI
// provides): adds them to `sets`; an explicit --set of another one is a
// ConfigError (a config file's other choice is replaced).
void add_sim_mpi(std::vector<std::string>& sets);
// What both models set beyond what the user asked (`asked`, loaded from
// `sets`): payload checks off for the event builders, normal pages;
// ConfigError for what they cannot simulate.
void add_sim_common_overrides(std::vector<std::string>& sets, const Config& asked,
                              const ProtocolFactory& protocol);
// The fluid model's: the common ones and how idle MPI ranks wait.
void add_sim_overrides(std::vector<std::string>& sets, const Config& asked,
                       const ProtocolFactory& protocol);

int run_sim(const Config& config, const SimRequest& request, const ProtocolFactory& protocol);

}  // namespace evb
