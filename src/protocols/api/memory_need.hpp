#pragma once
// One large block of memory a rank allocates for a configuration, known
// before it starts (an RU's ring, a BU's windows, a micro-benchmark's pool):
// what a protocol's factory reports (ProtocolFactory::memory_needs) so that
// the check before a run (apps/evbench/memory_plan.hpp) counts what the
// units will take, sized by the same functions they size their memory with.
#include <cstdint>
#include <string>

#include "core/aligned_buffer.hpp"

namespace evb {

struct MemoryNeed {
  std::string what;  // "RU ring", "BU windows", ...
  std::string keys;  // the keys that size it, e.g. "ru_buffer"
  uint64_t bytes = 0;
};

// Bytes AlignedBuffer maps for a block of `size` (4 KiB or 2 MiB pages).
inline uint64_t mapped_bytes(uint64_t size, PageSize pages) {
  const uint64_t page = pages == PageSize::huge ? AlignedBuffer::kHugePage : 4096;
  return (size + page - 1) / page * page;
}

}  // namespace evb
