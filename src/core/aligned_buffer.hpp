#pragma once
// One page-aligned block of memory (anonymous mmap), owned, non-copyable.
// Units carve their rings and slots out of it; drivers register it once.
#include <cstddef>
#include <cstdint>

namespace evb {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t size);  // throws evb::Error when the memory is not there
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer&& o) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace evb
