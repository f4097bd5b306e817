// The configuration keys the micro-benchmarks read
// (protocols/common/protocol_keys.hpp): `parallel` exchanges in flight per
// pair, `shift` for one-to-one (and the platform a shift scan's predicted
// rates come from); no credits, EVM, FUs or integrity sampling.
#include "protocols/common/protocol_keys.hpp"

namespace evb::micro {

std::vector<ProtocolKeys> keys() {
  return {{{"one-to-one"}, {"parallel", "shift", "seed", "topology.platform", "topology.order"}},
          {{"many-to-one", "gather", "gather-cmd", "gather-cmd-meta"}, {"parallel", "seed"}},
          {{"alltoall"}, {"seed"}}};
}

}  // namespace evb::micro
