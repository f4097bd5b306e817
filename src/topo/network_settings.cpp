// Names of the credit model's choices, as the platform file writes them.
#include "topo/network_settings.hpp"

namespace evb::topo {

const char* queueing_name(Queueing q) {
  return q == Queueing::voq ? "voq" : "fifo";
}

const char* switching_name(Switching s) {
  return s == Switching::store_and_forward ? "store-and-forward" : "cut-through";
}

const char* vl_map_name(VlMap m) {
  return m == VlMap::destination ? "destination" : "traffic";
}

}  // namespace evb::topo
