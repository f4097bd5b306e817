// The configuration keys PULL reads (see protocols/common/protocol_keys.hpp).
#include "protocols/common/protocol_keys.hpp"

namespace evb::pull {

std::vector<ProtocolKeys> keys() {
  return {{{"pull"},
           {"credits", "parallel", "scheduling", "topology.platform", "topology.order", "seed",
            "data_path", "evm", "events", "fu_per_bu", "fu.processing_time", "fu.accept_ratio",
            "ru_rate_factors", "verify.sample", "verify.payload", "fault.corrupt_every",
            "fault.corrupt", "local_fragment"}}};
}

}  // namespace evb::pull
