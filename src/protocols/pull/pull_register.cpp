// PULL as a plug-in: BUs ask the EVM for events (credits) and request each
// fragment from its RU; the agents are PullBuAgent and PullEvmAgent.
#include "protocols/api/protocol_registry.hpp"
#include "protocols/event_building/event_building_run.hpp"
#include "protocols/pull/pull.hpp"

void evb_register_protocol_pull(evb::ProtocolRegistry& registry) {
  using namespace evb;
  registry.add(event_building_factory(
      "pull", "event builder: the EVM assigns events, each BU requests the fragments from the RUs",
      {"credits",         "parallel",       "scheduling",         "topology.platform",
       "topology.order",  "seed",           "data_path",          "evm",
       "events",          "fu_per_bu",      "fu.processing_time", "fu.accept_ratio",
       "ru_rate_factors", "monitor.port",   "monitor.bind",       "monitor.token_file",
       "control",         "verify.sample",  "verify.payload",     "fault.corrupt_every",
       "fault.corrupt",   "local_fragment", "batch.events",       "batch.max_wait"},
      agents_of<pull::PullBuAgent, pull::PullEvmAgent>(true)));
}
