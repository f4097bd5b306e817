// evm-rate as a plug-in: PULL's EVM with BUs that credit every assignment
// back at once and RUs that are never asked for anything (evm_rate.hpp).
#include "protocols/api/protocol_registry.hpp"
#include "protocols/event_building/event_building_run.hpp"
#include "protocols/evm_rate/evm_rate.hpp"
#include "protocols/pull/pull.hpp"

void evb_register_protocol_evm_rate(evb::ProtocolRegistry& registry) {
  using namespace evb;
  registry.add(event_building_factory(
      "evm-rate",
      "EVM saturation benchmark: PULL's EVM assigns, BUs credit back at once, RUs send nothing",
      {"credits", "evm", "events", "seed", "batch.events", "batch.max_wait"},
      agents_of<evm_rate::CreditBackBuAgent, pull::PullEvmAgent>(false)));
}
