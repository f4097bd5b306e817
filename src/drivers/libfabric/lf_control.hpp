#pragma once
// The registered slots the libfabric driver sends its control messages
// (drivers/common/control_message.hpp) from and receives them into. They
// travel on the internal tag (drivers/common/rank_tags.hpp).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "drivers/common/control_message.hpp"

namespace evb::libfabric {

constexpr size_t kSlotBytes = 64;  // room for a kControlBytes message

// One slot of registered memory for a control message.
struct CtlSlot {
  std::byte* data = nullptr;
  void* desc = nullptr;  // fi_mr_desc of the chunk
};

// A growing pool of kSlotBytes slots, registered in chunks through
// `registrar` (which returns an owner plus the chunk's descriptor).
class CtlSlots {
 public:
  struct Chunk {
    std::unique_ptr<std::byte[]> memory;
    std::shared_ptr<void> registration;  // keeps the chunk registered
  };
  using Registrar = std::function<std::shared_ptr<void>(void* base, size_t size, void** desc)>;

  CtlSlots(Registrar registrar, size_t slots_per_chunk);
  ~CtlSlots();
  CtlSlots(const CtlSlots&) = delete;
  CtlSlots& operator=(const CtlSlots&) = delete;

  CtlSlot* acquire();  // throws evb::Error when registration fails
  void release(CtlSlot* slot) { free_.push_back(slot); }
  size_t in_use() const { return slots_.size() - free_.size(); }
  // Deregisters every chunk (the slots must no longer be in use by libfabric).
  void clear() noexcept;

 private:
  Registrar registrar_;
  size_t per_chunk_;
  std::vector<Chunk> chunks_;
  std::vector<std::unique_ptr<CtlSlot>> slots_;
  std::vector<CtlSlot*> free_;
};

}  // namespace evb::libfabric
