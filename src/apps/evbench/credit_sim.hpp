#pragma once
// `evbench sim --model credit`: the platform, the placement of the ranks on
// its hosts (as the fluid model places them) and the CreditNetwork over its
// forwarding tables, then the ranks (apps/evbench/credit_ranks.hpp). With
// --calibrate or --calibration the platform's links are first scaled by a
// calibration (apps/evbench/sim_calibration.hpp).
#include <string>
#include <vector>

#include "apps/evbench/cli.hpp"
#include "apps/evbench/credit_ranks.hpp"
#include "apps/evbench/run_options.hpp"
#include "apps/evbench/sim_command.hpp"
#include "core/config.hpp"
#include "topo/platform.hpp"

namespace evb {

int run_sim_credit(const Config& config, const SimRequest& request, const Plugins& plugins);

// What a calibration adds to the hosts: every message delivered
// `message_overhead_ns` after its last byte arrived, and each fragment's
// CPU at its RU and BU.
struct HostCosts {
  int64_t message_overhead_ns = 0;
  FragmentCpuCost fragment_cpu;
};

// One credit-model run of `config` on `platform`, node n on host order[n]
// (`name` names the platform in messages and results), with `costs`.
// `options` says where the results go; its network report fields are
// filled here. Returns the run's exit code. `fitting` (a calibration's
// runs of the measured configuration): no word about the placement on
// stderr. A protocol with no RU or BU (a micro-benchmark) is charged no
// fragment CPU, with a note on stderr.
int run_credit_on(const Config& config, const topo::Platform& platform,
                  const std::vector<int>& order, const std::string& name, const Plugins& plugins,
                  RunOptions options, const HostCosts& costs = {}, bool fitting = false);

}  // namespace evb
