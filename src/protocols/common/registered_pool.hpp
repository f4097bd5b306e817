#pragma once
// RegisteredPool: equal-sized buffers (command slots, fragment headers)
// carved from page-aligned chunks, each chunk registered with the driver once
// when it is created. Addresses stay valid while in use; an index fits in a
// cookie, and every buffer knows its registration, so a send or receive from
// it never makes the driver search for a key. Callers reserve() the expected
// depth at set-up; growth past it registers one more chunk.
#include <cstddef>
#include <memory>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "drivers/api/driver.hpp"

namespace evb {

class RegisteredPool {
 public:
  RegisteredPool(Driver& driver, size_t item_size, size_t chunk_items = 256)
      : driver_(driver),
        item_size_((item_size + 63) & ~size_t{63}),
        chunk_items_(chunk_items ? chunk_items : 1) {}

  // Makes sure `n` buffers exist (registering chunks as needed).
  void reserve(size_t n) {
    while (capacity() < n) grow();
  }
  // Index of a free buffer.
  size_t acquire() {
    if (free_.empty()) grow();
    const size_t i = free_.back();
    free_.pop_back();
    return i;
  }
  void release(size_t i) { free_.push_back(i); }
  std::byte* at(size_t i) const {
    return chunks_[i / chunk_items_].reg->base() + (i % chunk_items_) * item_size_;
  }
  const Registration* reg(size_t i) const { return chunks_[i / chunk_items_].reg.get(); }
  Segment segment(size_t i, size_t size) const { return Segment{at(i), size, reg(i)}; }
  size_t capacity() const { return chunks_.size() * chunk_items_; }
  size_t item_size() const { return item_size_; }

 private:
  struct Chunk {
    AlignedBuffer memory;
    RegistrationPtr reg;
  };
  void grow() {
    Chunk c{AlignedBuffer(item_size_ * chunk_items_), nullptr};
    c.reg = driver_.register_memory(c.memory.data(), c.memory.size());
    const size_t first = capacity();
    chunks_.push_back(std::move(c));
    for (size_t k = chunk_items_; k-- > 0;) free_.push_back(first + k);
  }

  Driver& driver_;
  size_t item_size_;
  size_t chunk_items_;
  std::vector<Chunk> chunks_;
  std::vector<size_t> free_;
};

}  // namespace evb
