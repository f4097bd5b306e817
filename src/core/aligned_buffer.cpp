#include "core/aligned_buffer.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "core/sim_context.hpp"

namespace evb {

namespace {

[[noreturn]] void out_of_memory(size_t size) {
  throw Error("cannot allocate " + std::to_string(size) + " bytes: " + std::strerror(errno));
}

}  // namespace

AlignedBuffer::AlignedBuffer(size_t size, PageSize pages) : size_(size) {
  if (size == 0) return;
  if (pages == PageSize::normal) {
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) out_of_memory(size);
    data_ = static_cast<uint8_t*>(p);
    mapped_ = size;
    return;
  }
  // Map one huge page more than needed, keep the 2 MiB-aligned part and
  // give the ends back, so every huge page of the block can be a real one.
  if (size > SIZE_MAX - 2 * kHugePage) {
    errno = ENOMEM;
    out_of_memory(size);
  }
  mapped_ = (size + kHugePage - 1) / kHugePage * kHugePage;
  const size_t span = mapped_ + kHugePage;
  void* p = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) out_of_memory(size);
  const auto base = reinterpret_cast<uintptr_t>(p);
  const uintptr_t aligned = (base + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
  if (aligned > base) munmap(p, aligned - base);
  const uintptr_t end = aligned + mapped_;
  if (base + span > end) munmap(reinterpret_cast<void*>(end), base + span - end);
  data_ = reinterpret_cast<uint8_t*>(aligned);
  // Advice only: a kernel with transparent huge pages off keeps small pages.
  (void)madvise(data_, mapped_, MADV_HUGEPAGE);
}

AlignedBuffer::~AlignedBuffer() {
  release();
}

void AlignedBuffer::release() noexcept {
  if (data_ && release_) {
    release_(data_, size_);
  } else if (data_) {
    munmap(data_, mapped_);
  }
  data_ = nullptr;
  size_ = mapped_ = 0;
  release_ = nullptr;
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& o) noexcept
    : data_(std::exchange(o.data_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      mapped_(std::exchange(o.mapped_, 0)),
      release_(std::exchange(o.release_, nullptr)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& o) noexcept {
  if (this != &o) {
    release();
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
    mapped_ = std::exchange(o.mapped_, 0);
    release_ = std::exchange(o.release_, nullptr);
  }
  return *this;
}

uint64_t anon_huge_bytes() {
  // Every simulated rank is this one process, and smaps_rollup walks its
  // page tables: 512 ranks reading it took most of a 512-node simulation.
  if (sim_context()) return 0;
  std::ifstream in("/proc/self/smaps_rollup");
  std::string key;
  uint64_t kib = 0;
  while (in >> key) {
    if (key == "AnonHugePages:" && in >> kib) return kib * 1024;
    in.ignore(4096, '\n');
  }
  return 0;
}

uint64_t anon_rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string key;
  uint64_t kib = 0;
  while (in >> key) {
    if (key == "RssAnon:" && in >> kib) return kib * 1024;
    in.ignore(4096, '\n');
  }
  return 0;
}

}  // namespace evb
