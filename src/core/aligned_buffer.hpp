#pragma once
// One page-aligned block of memory (anonymous mmap), owned, non-copyable.
// Units carve their rings and slots out of it; drivers register it once.
// With PageSize::huge the block is aligned to 2 MiB and advised for
// transparent huge pages (madvise MADV_HUGEPAGE), so a ring or window that
// streams through main memory needs 512 times fewer TLB entries; whether the
// kernel really backs it with huge pages is reported (anon_huge_bytes()),
// not assumed.
#include <cstddef>
#include <cstdint>

namespace evb {

enum class PageSize { normal, huge };

class AlignedBuffer {
 public:
  static constexpr size_t kHugePage = size_t{2} << 20;

  // How adopted memory is given back.
  using Release = void (*)(uint8_t* data, size_t size);

  AlignedBuffer() = default;
  // Throws evb::Error when the memory is not there.
  explicit AlignedBuffer(size_t size, PageSize pages = PageSize::normal);
  // Adopts `size` bytes at `data` that another allocator made (page-aligned);
  // `give_back(data, size)` releases them.
  AlignedBuffer(uint8_t* data, size_t size, Release give_back)
      : data_(data), size_(size), mapped_(size), release_(give_back) {}
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer&& o) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void release() noexcept;

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_ = 0;          // bytes mapped at data_ (size_ rounded up to the page size)
  Release release_ = nullptr;  // null: munmap
};

// Bytes of this process's anonymous memory backed by transparent huge pages
// (AnonHugePages of /proc/self/smaps_rollup); 0 when the kernel does not say
// and under the credit model's simulation (every rank is one process).
uint64_t anon_huge_bytes();

// Bytes of this process's resident anonymous memory (RssAnon of
// /proc/self/status): unlike the resident set size, not counting file pages
// mapped many times over (SMPI's shared payload memory); 0 when unknown.
uint64_t anon_rss_bytes();

}  // namespace evb
