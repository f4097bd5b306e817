#pragma once
// `evbench sim --model credit --calibrate MEASURED.json`: the fit itself.
// The measured run's own configuration (read from its results document,
// apps/evbench/sim_measured.hpp) is simulated on the platform, its links
// scaled until the simulated per-node rate matches the measured one
// (fit_link_efficiency, apps/evbench/sim_calibration.hpp), the hosts
// charged all along the CPU per fragment the run recorded (fragment_cpu_of);
// the overlay file is written (--calibration FILE, default
// calibration.yaml) and the calibration returned for the prediction of
// CONFIG.
#include <string>
#include <vector>

#include "apps/evbench/cli.hpp"
#include "apps/evbench/credit_sim.hpp"
#include "apps/evbench/sim_calibration.hpp"
#include "apps/evbench/sim_command.hpp"
#include "core/config.hpp"
#include "topo/platform.hpp"

namespace evb {

// `config` is the configuration to predict (its protocol must be the
// measured run's); `platform` unscaled; `order` and `name` as the
// prediction places and names them.
Calibration calibrate_credit(const Config& config, const SimRequest& req, const Plugins& plugins,
                             const topo::Platform& platform, const std::vector<int>& order,
                             const std::string& name);

// What `c` adds to the simulated hosts (run_credit_on): its per-message
// overhead and its CPU per fragment, in ns.
HostCosts host_costs(const Calibration& c);

// The overlay file --calibrate writes when --calibration names none.
inline constexpr const char* kDefaultCalibrationFile = "calibration.yaml";

}  // namespace evb
