// PUSH as a plug-in: the EVM tells the RUs which BU builds each event and
// the RUs send their fragments unasked; the agents are PushBuAgent and
// PushEvmAgent. Beyond the event builders' rules: a desync needs 2 nodes.
#include "protocols/api/protocol_registry.hpp"
#include "protocols/event_building/event_building_run.hpp"
#include "protocols/push/push.hpp"

namespace evb::push {
namespace {

// A PUSH BU learns the event from the headers: one RU has no other to differ from.
KeyRule desync_needs_two_nodes() {
  return {
      "a desync in `faults` needs 2 nodes or more (a BU takes the event from the "
      "fragments)",
      [](const Config& c, const PluginKeys&) -> std::optional<KeyProblem> {
        if (c.nodes >= 2) return std::nullopt;
        for (size_t i = 0; i < c.faults.size(); ++i)
          if (c.faults[i].kind == FaultSpec::Kind::desync)
            return KeyProblem{{"faults", "nodes"},
                              "entry " + std::to_string(i + 1) +
                                  ": desync: push with one node cannot see an RU out of sync "
                                  "(its BU takes the event from the only fragment): nodes 2 "
                                  "or more"};
        return std::nullopt;
      }};
}

}  // namespace
}  // namespace evb::push

void evb_register_protocol_push(evb::ProtocolRegistry& registry) {
  using namespace evb;
  ProtocolFactory f = event_building_factory(
      "push", "event builder: the EVM assigns events, the RUs send their fragments to the BU",
      {"credits",
       "scheduling",
       "topology.platform",
       "topology.order",
       "seed",
       "data_path",
       "evm",
       "events",
       "fu_per_bu",
       "fu.processing_time",
       "fu.accept_ratio",
       "ru_rate_factors",
       "monitor.port",
       "monitor.bind",
       "monitor.token_file",
       "control",
       "verify.sample",
       "verify.payload",
       "fault.corrupt_every",
       "fault.corrupt",
       "batch.events",
       "batch.max_wait"},
      agents_of<push::PushBuAgent, push::PushEvmAgent>(false));
  f.rules.push_back(push::desync_needs_two_nodes());
  registry.add(std::move(f));
}
