// AlignedBuffer: page alignment, the huge-page variant's 2 MiB alignment and
// size, moves, and the huge-page accounting read from /proc.
#include "core/aligned_buffer.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <utility>

namespace evb {
namespace {

bool aligned_to(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

TEST(AlignedBuffer, NormalPagesArePageAlignedAndWritable) {
  AlignedBuffer b(10000);
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(b.size(), 10000u);
  EXPECT_TRUE(aligned_to(b.data(), 4096));
  std::memset(b.data(), 0xAB, b.size());
  EXPECT_EQ(b.data()[9999], 0xAB);
}

TEST(AlignedBuffer, HugePagesAreAlignedToTwoMiBWhateverTheSize) {
  for (size_t size : {size_t{1}, size_t{4096}, AlignedBuffer::kHugePage - 1,
                      AlignedBuffer::kHugePage, 3 * AlignedBuffer::kHugePage + 5}) {
    AlignedBuffer b(size, PageSize::huge);
    ASSERT_NE(b.data(), nullptr) << size;
    EXPECT_EQ(b.size(), size);  // the rounding to whole huge pages is not the caller's
    EXPECT_TRUE(aligned_to(b.data(), AlignedBuffer::kHugePage)) << size;
    std::memset(b.data(), 0x5A, size);  // every byte asked for is there
    EXPECT_EQ(b.data()[size - 1], 0x5A);
  }
}

TEST(AlignedBuffer, MovesTransferOwnership) {
  AlignedBuffer a(3 * AlignedBuffer::kHugePage, PageSize::huge);
  uint8_t* p = a.data();
  AlignedBuffer b(std::move(a));
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(a.data(), nullptr);
  EXPECT_EQ(a.size(), 0u);
  AlignedBuffer c(4096);
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), 3 * AlignedBuffer::kHugePage);
  c.data()[c.size() - 1] = 1;
}

TEST(AlignedBuffer, ZeroBytesIsEmpty) {
  AlignedBuffer b(0, PageSize::huge);
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(b.size(), 0u);
}

// anon_huge_bytes() reads what the kernel reports; it cannot promise huge
// pages (transparent huge pages may be off), but it must report whole huge
// pages, and touching a huge-page buffer must not make the figure shrink.
TEST(AlignedBuffer, HugePageAccountingIsInWholePages) {
  const uint64_t before = anon_huge_bytes();
  EXPECT_EQ(before % AlignedBuffer::kHugePage, 0u);
  AlignedBuffer b(8 * AlignedBuffer::kHugePage, PageSize::huge);
  std::memset(b.data(), 1, b.size());
  const uint64_t after = anon_huge_bytes();
  EXPECT_EQ(after % AlignedBuffer::kHugePage, 0u);
  EXPECT_GE(after, before);
}

}  // namespace
}  // namespace evb
