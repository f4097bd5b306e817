// payload_slots() of the SMPI build: each slot's payload part in SimGrid's
// shared memory (smpi_shared_malloc_partial), its first private_bytes
// private. SimGrid copies only the bytes that are private at both ends of a
// message; the rest is never copied and costs no memory (the shared part of
// every slot of every rank maps the same small file). Page size advice does
// not apply: SimGrid maps the memory itself.
#include <mpi.h>

#include <vector>

#include "core/error.hpp"
#include "core/payload_memory.hpp"

namespace evb {

namespace {
void shared_free(uint8_t* data, size_t) {
  smpi_shared_free(data);
}
}  // namespace

AlignedBuffer payload_slots(size_t slots, size_t stride, size_t private_bytes, PageSize) {
  if (slots == 0 || stride == 0) return {};
  if (private_bytes >= stride)
    throw Error("payload_slots: " + std::to_string(private_bytes) +
                " private bytes leave nothing to share in slots of " + std::to_string(stride));
  // Shared blocks as [start, stop) pairs: each slot but its private head.
  std::vector<size_t> blocks;
  blocks.reserve(2 * slots);
  for (size_t s = 0; s < slots; ++s) {
    blocks.push_back(s * stride + private_bytes);
    blocks.push_back((s + 1) * stride);
  }
  void* p = smpi_shared_malloc_partial(slots * stride, blocks.data(), static_cast<int>(slots));
  if (p == nullptr) throw Error("payload_slots: smpi_shared_malloc_partial failed");
  return AlignedBuffer(static_cast<uint8_t*>(p), slots * stride, &shared_free);
}

bool payload_memory_shared() {
  return true;
}

}  // namespace evb
