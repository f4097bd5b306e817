#include "protocols/memory_needs.hpp"

#include "core/aligned_buffer.hpp"
#include "protocols/microbench/microbench_agent.hpp"
#include "protocols/microbench/microbench_detail.hpp"
#include "units/builder_unit.hpp"
#include "units/readout_unit.hpp"

namespace evb {
namespace {

// Bytes AlignedBuffer maps for a block of `size`.
uint64_t mapped(uint64_t size, PageSize pages) {
  const uint64_t page = pages == PageSize::huge ? AlignedBuffer::kHugePage : 4096;
  return (size + page - 1) / page * page;
}

}  // namespace

std::vector<MemoryNeed> rank_memory_needs(const Config& c, const RankRoles& roles) {
  std::vector<MemoryNeed> out;
  auto add = [&](const char* what, const char* keys, uint64_t bytes, bool block = true) {
    if (bytes > 0) out.push_back({what, keys, block ? mapped(bytes, c.page_size) : bytes});
  };
  if (is_event_builder(c.protocol)) {
    if (roles.ru >= 0) {
      add("RU ring", "ru_buffer", ReadoutUnit::ring_bytes(c, roles.ru));
      add("RU checksum table", "ru_buffer", ReadoutUnit::checksum_table_bytes(c, roles.ru), false);
    }
    if (roles.bu >= 0)
      add("BU windows", "credits, nodes, fragment.size", BuilderUnit::memory_bytes(c));
    return out;
  }
  const uint64_t data = micro::data_message_size(c);
  if (c.protocol == Protocol::alltoall) {
    const uint64_t block = data * static_cast<uint64_t>(c.nodes);
    add("send pool", "ru_buffer", micro::DataPool::size_for(c.ru_buffer, block));
    add("receive buffer", "nodes, fragment.size", block);
    return out;
  }
  if (roles.ru >= 0)
    add("send pool", "ru_buffer",
        micro::DataPool::size_for(c.ru_buffer, data + micro::meta_message_size(c)));
  add("receive arena", "nodes, parallel, fragment.size",
      micro::MicroAgent::arena_bytes(c, micro::max_sources_of(c, roles.bu)));
  return out;
}

}  // namespace evb
