#include "units/window_layout.hpp"

#include "core/messages.hpp"
#include "units/fragment_sizes.hpp"

namespace evb {

WindowLayout::WindowLayout(const Config& config) : slots_(static_cast<size_t>(config.credits)) {
  size_t off = 0;
  for (int r = 0; r < config.nodes; ++r) {
    const size_t w = head_bytes(config) + meta_bytes(config) + max_mep_payload(config, r);
    window_size_.push_back(w);
    window_offset_.push_back(off);
    off += (w + 63) & ~size_t{63};  // cache-line aligned windows
  }
  slot_stride_ = (off + 4095) & ~size_t{4095};  // page-aligned slots
}

}  // namespace evb
