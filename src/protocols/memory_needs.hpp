#pragma once
// The large blocks of memory one rank allocates for a configuration, known
// before it starts: an RU's ring and checksum table, a BU's windows, a
// micro-benchmark's send pool and receive arena. Each is computed by the
// functions the units and protocols size their memory with, so the memory
// check before a run (apps/evbench/memory_plan.hpp) counts what they take.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/topology.hpp"

namespace evb {

struct MemoryNeed {
  std::string what;  // "RU ring", "BU windows", ...
  std::string keys;  // the keys that size it, e.g. "ru_buffer"
  uint64_t bytes = 0;
};

// What the rank with `roles` allocates (pages rounded as the allocator maps
// them: 4 KiB, or 2 MiB with page_size huge).
std::vector<MemoryNeed> rank_memory_needs(const Config& config, const RankRoles& roles);

}  // namespace evb
