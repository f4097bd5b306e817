#pragma once
// Remote CQ data that carries the write's length and its writer beside the
// 32-bit immediate, for providers whose remote CQ data completions report
// neither (tcp;ofi_rxm: len 0, source address 0) but carry 64 bits of data.
// Without it the driver would send an ordered notification after every write
// (the emulated immediate): a second message, a second completion on each
// side and a receive to repost, per write (docs/drivers/libfabric.md,
// "Against bench/fi_rma_bw.c").
//
// Layout of the 64 bits: low 32 the immediate; high 32 the writer's rank in
// the top `rank_bits` (enough for every rank of the run) and the length in
// the rest. A write longer than max_bytes() cannot be packed: the driver
// sends it with the emulated immediate instead.
#include <bit>
#include <cstddef>
#include <cstdint>

namespace evb::libfabric {

struct CqDataPacking {
  unsigned rank_bits = 0;

  // For a run of `ranks` ranks (the same on every rank).
  static CqDataPacking for_ranks(uint64_t ranks) {
    return {static_cast<unsigned>(std::bit_width(ranks > 1 ? ranks - 1 : 0))};
  }
  unsigned length_bits() const { return rank_bits >= 32 ? 0 : 32 - rank_bits; }
  uint64_t max_bytes() const { return (uint64_t{1} << length_bits()) - 1; }
  bool fits(uint64_t bytes) const { return bytes <= max_bytes(); }

  // Caller checks fits(bytes) and that `writer` is a rank of the run.
  uint64_t pack(uint32_t immediate, uint64_t writer, uint64_t bytes) const {
    const uint64_t high = length_bits() >= 32 ? bytes : (writer << length_bits()) | bytes;
    return (high << 32) | immediate;
  }

  struct Unpacked {
    uint32_t immediate;
    uint64_t writer;
    uint64_t bytes;
  };
  Unpacked unpack(uint64_t data) const {
    const uint64_t high = data >> 32;
    return {static_cast<uint32_t>(data), length_bits() >= 32 ? 0 : high >> length_bits(),
            high & max_bytes()};
  }
};

}  // namespace evb::libfabric
