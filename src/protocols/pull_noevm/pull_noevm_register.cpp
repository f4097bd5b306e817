// PULL without an EVM as a plug-in: a static assignment (BU b builds events
// b, b + nodes, ...), fragments pulled as in PULL; the agent is NoEvmBuAgent.
#include "protocols/api/protocol_registry.hpp"
#include "protocols/event_building/event_building_run.hpp"
#include "protocols/pull_noevm/pull_noevm.hpp"

void evb_register_protocol_pull_noevm(evb::ProtocolRegistry& registry) {
  using namespace evb;
  registry.add(event_building_factory(
      "pull-noevm", "event builder without an EVM: BU b builds events b, b + nodes, ... and pulls",
      {"credits", "parallel", "scheduling", "topology.platform", "topology.order", "seed",
       "data_path", "events", "fu_per_bu", "fu.processing_time", "fu.accept_ratio",
       "ru_rate_factors", "verify.sample", "verify.payload", "fault.corrupt_every", "fault.corrupt",
       "local_fragment"},
      agents_of<pull_noevm::NoEvmBuAgent, void>(true)));
}
