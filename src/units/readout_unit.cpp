#include "units/readout_unit.hpp"

#include <algorithm>
#include <cstring>

#include "core/crc32c.hpp"
#include "core/payload_memory.hpp"
#include "core/rng.hpp"
#include "units/fragment_sizes.hpp"

namespace evb {

ReadoutUnit::ReadoutUnit(int index, const Config& config)
    : config_(config),
      index_(index),
      meta_bytes_(meta_bytes(config)),
      events_(mep_events(config)),
      head_(evb::head_bytes(config)),
      max_payload_(max_mep_payload(config, index)),
      start_factor_(evb::rate_factor(config, index)) {
  stride_ = slot_stride(config, index);
  // `ru_buffer` counts fragment bytes; the head room per slot (64 B header,
  // MEP table) comes on top, so a ring of N maximal fragments holds N slots.
  slots_ = ring_slots(config, index);
  // Each slot's head room stays private where payloads are shared (SMPI).
  ring_ = payload_slots(slots_, stride_, head_, config.page_size);
  blocks_per_slot_ = max_payload_ / kCrcBlock + 1;
  prefix_crc_.resize(slots_ * blocks_per_slot_);
  Rng rng(mix(config.seed, 0xF00D, static_cast<uint64_t>(index)));
  uint8_t* p = ring_.data();
  for (size_t i = 0; i + 8 <= ring_.size(); i += 8) {
    const uint64_t v = rng.next();
    std::memcpy(p + i, &v, 8);
  }
  for (size_t s = 0; s < slots_; ++s) {
    const uint8_t* meta = p + s * stride_ + head_;
    const uint8_t* payload = meta + meta_bytes_;
    uint32_t crc = crc32c(meta, meta_bytes_);  // the checksum covers metadata, then payload
    for (size_t b = 0; b < blocks_per_slot_; ++b) {
      prefix_crc_[s * blocks_per_slot_ + b] = crc;  // crc of the first b blocks
      const uint64_t start = b * kCrcBlock;
      if (start >= max_payload_) break;
      crc = crc32c_extend(crc, payload + start, std::min(kCrcBlock, max_payload_ - start));
    }
  }
}

uint64_t ReadoutUnit::slot_stride(const Config& config, int index) {
  return (evb::head_bytes(config) + meta_bytes(config) + max_mep_payload(config, index) + 63) &
         ~uint64_t{63};
}

uint64_t ReadoutUnit::ring_bytes(const Config& config, int index) {
  return ring_slots(config, index) * slot_stride(config, index);
}

uint64_t ReadoutUnit::checksum_table_bytes(const Config& config, int index) {
  return ring_slots(config, index) * (max_mep_payload(config, index) / kCrcBlock + 1) *
         sizeof(uint32_t);
}

FragmentView ReadoutUnit::fragment(uint64_t event, size_t s) const {
  FragmentView f;
  f.slot = s;
  f.header = ring_.data() + s * stride_;
  f.meta = f.header + head_;
  f.payload = f.meta + meta_bytes_;
  if (events_ == 1) {
    f.payload_size = event_payload(event, served_event(event));
  } else {
    const uint64_t first = event * events_ + shift_;  // modulo 2^64, as the shift
    f.payload_size = 0;
    for (uint64_t i = 0; i < events_; ++i) f.payload_size += event_payload(event, first + i);
  }
  const uint64_t full = f.payload_size / kCrcBlock;
  f.crc = crc32c_extend(prefix_crc_[s * blocks_per_slot_ + full], f.payload + full * kCrcBlock,
                        f.payload_size - full * kCrcBlock);
  return f;
}

void ReadoutUnit::set_rate_factor(double factor, uint64_t from_event) {
  // A boundary before the last one (a late command) replaces what follows it.
  while (!factors_.empty() && factors_.back().first >= from_event) factors_.pop_back();
  factors_.emplace_back(from_event, factor);
}

uint64_t ReadoutUnit::event_payload(uint64_t event, uint64_t ev) const {
  return factors_.empty() ? fragment_payload(config_, index_, ev)
                          : fragment_payload(config_, index_, ev, factor_of(event));
}

double ReadoutUnit::factor_of(uint64_t event) const {
  for (auto it = factors_.rbegin(); it != factors_.rend(); ++it)
    if (event >= it->first) return it->second;
  return start_factor_;
}

void ReadoutUnit::fill_header(FragmentHeader& h, const FragmentView& f, uint64_t event, int bu) {
  h = FragmentHeader{};
  h.event_id = served_event(event);
  h.ru = static_cast<uint32_t>(index_);
  h.bu = static_cast<uint32_t>(bu);
  h.sequence = sequence_++;
  h.payload_size = f.payload_size;
  h.meta_segments = static_cast<uint16_t>(config_.fragment.meta_segments);
  h.meta_size = static_cast<uint32_t>(config_.fragment.meta_size);
  h.crc32c = f.crc;
  if (events_ > 1) {
    // The table right behind the header: the events served, their sizes.
    h.version = kMepFragmentVersion;
    h.events = static_cast<uint32_t>(events_);
    auto* table = reinterpret_cast<uint8_t*>(&h) + sizeof(FragmentHeader);
    const uint64_t first = event * events_ + shift_;
    for (uint64_t i = 0; i < events_; ++i) {
      const MepEntry m{first + i, event_payload(event, first + i)};
      std::memcpy(table + i * sizeof(MepEntry), &m, sizeof m);
    }
    h.table_crc = crc32c(table, events_ * sizeof(MepEntry));
  }
  if (config_.corrupt_every && h.sequence % config_.corrupt_every == config_.corrupt_every - 1)
    h.crc32c ^= 0x1;  // fault injection: the BU must see this as corrupt
  h.header_crc = header_checksum(h);
}

}  // namespace evb
