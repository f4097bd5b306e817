#pragma once
// `evbench sim --model credit`: the platform, the placement of the ranks on
// its hosts (as the fluid model places them) and the CreditNetwork over its
// forwarding tables, then the ranks (apps/evbench/credit_ranks.hpp).
#include "apps/evbench/cli.hpp"
#include "apps/evbench/sim_command.hpp"
#include "core/config.hpp"

namespace evb {

int run_sim_credit(const Config& config, const SimRequest& request, const Plugins& plugins);

}  // namespace evb
