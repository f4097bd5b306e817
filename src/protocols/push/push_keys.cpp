// The configuration keys PUSH reads (see protocols/common/protocol_keys.hpp).
// No `parallel`: RUs send as soon as the EVM assigns, the BU asks for nothing.
#include "protocols/common/protocol_keys.hpp"

namespace evb::push {

std::vector<ProtocolKeys> keys() {
  return {
      {{"push"},
       {"credits", "scheduling", "topology.platform", "topology.order", "seed", "data_path", "evm",
        "events", "fu_per_bu", "fu.processing_time", "fu.accept_ratio", "ru_rate_factors",
        "verify.sample", "verify.payload", "fault.corrupt_every", "fault.corrupt"}}};
}

}  // namespace evb::push
