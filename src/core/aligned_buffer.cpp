#include "core/aligned_buffer.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace evb {

AlignedBuffer::AlignedBuffer(size_t size) : size_(size) {
  if (size == 0) return;
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error("cannot allocate " + std::to_string(size) + " bytes: " + std::strerror(errno));
  data_ = static_cast<uint8_t*>(p);
}

AlignedBuffer::~AlignedBuffer() {
  if (data_) munmap(data_, size_);
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& o) noexcept {
  if (this != &o) {
    if (data_) munmap(data_, size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

}  // namespace evb
