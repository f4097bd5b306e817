// The configuration keys PULL-without-EVM reads (protocols/common/protocol_keys.hpp).
// No `evm`: there is none.
#include "protocols/common/protocol_keys.hpp"

namespace evb::pull_noevm {

std::vector<ProtocolKeys> keys() {
  return {{{"pull-noevm"},
           {"credits", "parallel", "scheduling", "topology.platform", "topology.order", "seed",
            "data_path", "events", "fu_per_bu", "fu.processing_time", "fu.accept_ratio",
            "ru_rate_factors", "verify.sample", "verify.payload", "fault.corrupt_every",
            "fault.corrupt", "local_fragment"}}};
}

}  // namespace evb::pull_noevm
