#include "drivers/libfabric/lf_control.hpp"

namespace evb::libfabric {

CtlSlots::CtlSlots(Registrar registrar, size_t slots_per_chunk)
    : registrar_(std::move(registrar)), per_chunk_(slots_per_chunk ? slots_per_chunk : 1) {}

CtlSlots::~CtlSlots() {
  clear();
}

CtlSlot* CtlSlots::acquire() {
  if (free_.empty()) {
    const size_t bytes = per_chunk_ * kSlotBytes;
    Chunk chunk;
    chunk.memory = std::make_unique<std::byte[]>(bytes);
    void* desc = nullptr;
    chunk.registration = registrar_(chunk.memory.get(), bytes, &desc);
    for (size_t i = 0; i < per_chunk_; ++i) {
      auto slot = std::make_unique<CtlSlot>();
      slot->data = chunk.memory.get() + i * kSlotBytes;
      slot->desc = desc;
      free_.push_back(slot.get());
      slots_.push_back(std::move(slot));
    }
    chunks_.push_back(std::move(chunk));
  }
  CtlSlot* s = free_.back();
  free_.pop_back();
  return s;
}

void CtlSlots::clear() noexcept {
  free_.clear();
  slots_.clear();
  // Deregister before freeing the memory.
  for (auto& c : chunks_) c.registration.reset();
  chunks_.clear();
}

}  // namespace evb::libfabric
