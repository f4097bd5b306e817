// payload_slots() of the ordinary build: private memory, nothing shared.
#include "core/payload_memory.hpp"

namespace evb {

AlignedBuffer payload_slots(size_t slots, size_t stride, size_t, PageSize pages) {
  return AlignedBuffer(slots * stride, pages);
}

bool payload_memory_shared() {
  return false;
}

}  // namespace evb
