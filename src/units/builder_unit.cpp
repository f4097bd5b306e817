#include "units/builder_unit.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/crc32c.hpp"
#include "core/payload_memory.hpp"
#include "core/rng.hpp"
#include "units/fragment_sizes.hpp"

namespace evb {

BuilderUnit::BuilderUnit(int index, const Config& config, uint8_t* memory)
    : config_(config),
      index_(index),
      nru_(config.nodes),
      events_(mep_events(config)),
      head_(evb::head_bytes(config)),
      verify_payload_(evb::payload_checks(config)),
      layout_(config) {
  // Injected corruption must all be looked for: fault.corrupt checks everything.
  const double sample =
      config.corrupt_probability > 0 ? 1.0 : std::clamp(config.verify_sample, 0.0, 1.0);
  verify_threshold_ = sample >= 1.0 ? UINT64_MAX : static_cast<uint64_t>(sample * 0x1.0p64);
  slots_.resize(config.credits);
  if (!memory) {
    own_ = AlignedBuffer(layout_.total(), config.page_size);
    memory = own_.data();
  }
  base_ = memory;
  first_seen_.assign(nru_, 0);
}

void BuilderUnit::reset(EventSlot& e) {
  // Every field back to its default (whatever fields EventSlot gains), the
  // vectors emptied but keeping their memory.
  EventSlot fresh;
  fresh.order.swap(e.order);
  fresh.have.swap(e.have);
  fresh.order.clear();
  fresh.have.clear();
  e = std::move(fresh);
}

void BuilderUnit::start(uint32_t s, uint64_t event, std::span<const int> order, int64_t now_ns) {
  EventSlot& e = slots_.at(s);
  reset(e);
  e.state = SlotState::building;
  e.event = event;
  e.order.assign(order.begin(), order.end());
  e.have.assign(nru_, 0);
  e.started_ns = now_ns;
}

bool BuilderUnit::should_verify(uint64_t event, int ru) const {
  if (!first_seen_[ru]) return true;
  if (verify_threshold_ == UINT64_MAX) return true;
  return mix(config_.seed ^ 0xC4C, event, static_cast<uint64_t>(ru)) < verify_threshold_;
}

int BuilderUnit::inject_corruption(uint32_t s, int ru, size_t bytes) {
  const double p = config_.corrupt_probability;
  const uint64_t n = arrivals_++;
  if (p <= 0 || bytes < head_ || slots_.at(s).have.at(ru)) return -1;
  const uint64_t draw = mix(config_.seed ^ 0xFA17, static_cast<uint64_t>(index_), n);
  if (to_unit(draw) >= p) return -1;
  // Header (with a MEP's table), metadata or payload, as far as the
  // fragment has them.
  const uint64_t meta = meta_bytes(config_);
  const uint64_t body = bytes - head_;
  const uint64_t bits = splitmix64(draw);
  uint64_t offset = bits % head_;
  int region = static_cast<int>((bits >> 8) % 3);
  if (region == 1 && meta > 0 && body >= meta) {
    offset = head_ + (bits >> 16) % meta;
  } else if (region == 2 && body > meta) {
    offset = head_ + meta + (bits >> 16) % (body - meta);
  } else {
    region = 0;  // the fragment has no such part: its header takes the hit
  }
  window(s, ru)[offset] ^= static_cast<uint8_t>(1u << ((bits >> 5) & 7));
  return region;
}

bool BuilderUnit::complete_but(uint32_t s, const std::vector<uint8_t>& lost) const {
  const EventSlot& e = slots_.at(s);
  if (e.state != SlotState::building || e.have.size() != static_cast<size_t>(nru_)) return false;
  bool missing = false;
  for (int r = 0; r < nru_; ++r) {
    if (e.have[r]) continue;
    if (static_cast<size_t>(r) >= lost.size() || !lost[r]) return false;  // still to come
    missing = true;
  }
  return missing;
}

bool BuilderUnit::accept(uint32_t s, int ru, size_t bytes) {
  const int region = inject_corruption(s, ru, bytes);
  const uint8_t* w = window(s, ru);
  const bool ok = check(s, ru, w, w + head_, bytes);
  if (region >= 0) {
    ++integrity_.injected;
    ++integrity_.injected_in[region];
    if (!ok) {
      ++integrity_.injected_detected;
      ++integrity_.detected_in[region];
    }
  }
  return ok;
}

bool BuilderUnit::accept_in_place(uint32_t s, int ru, const uint8_t* head, const uint8_t* body,
                                  size_t bytes) {
  return check(s, ru, head, body, bytes);
}

std::string BuilderUnit::table_problem(const FragmentHeader& h, const uint8_t* table) const {
  // h.events == p was checked, so the table is p entries inside the message.
  if (crc32c(table, events_ * sizeof(MepEntry)) != h.table_crc)
    return "MEP table checksum mismatch";
  uint64_t sum = 0;
  for (uint64_t i = 0; i < events_; ++i) {
    MepEntry m;
    std::memcpy(&m, table + i * sizeof(MepEntry), sizeof m);
    if (m.size > h.payload_size - sum)  // sum <= payload_size: no wrap
      return "MEP table: the sizes up to event " + std::to_string(m.event) + " exceed the " +
             std::to_string(h.payload_size) + " B payload";
    sum += m.size;
  }
  if (sum != h.payload_size)
    return "MEP table: sizes add up to " + std::to_string(sum) + " B, payload " +
           std::to_string(h.payload_size) + " B";
  return "";
}

int64_t BuilderUnit::wrong_event(uint64_t mep, const uint8_t* table) const {
  for (uint64_t i = 0; i < events_; ++i) {
    uint64_t ev = 0;
    std::memcpy(&ev, table + i * sizeof(MepEntry), sizeof ev);
    if (ev != mep * events_ + i) return static_cast<int64_t>(i);  // modulo 2^64, as the RU
  }
  return -1;
}

bool BuilderUnit::check(uint32_t s, int ru, const uint8_t* head, const uint8_t* data,
                        size_t bytes) {
  EventSlot& e = slots_.at(s);
  last_out_of_sync_ = false;
  auto fail = [&](const std::string& why) {
    ++integrity_.corrupt;
    e.bad = true;
    e.have[ru] = 1;
    ++e.received;
    e.bytes += bytes;
    if (first_problem_.empty())
      first_problem_ = "BU " + std::to_string(index_) + ": corrupt fragment from RU " +
                       std::to_string(ru) + " for event " + std::to_string(e.event) + ": " + why;
    return false;
  };
  if (e.have.at(ru)) {
    ++integrity_.duplicate;
    if (first_problem_.empty())
      first_problem_ = "BU " + std::to_string(index_) + ": duplicate fragment from RU " +
                       std::to_string(ru) + " for event " + std::to_string(e.event);
    return false;
  }
  if (bytes < sizeof(FragmentHeader)) return fail("message shorter than a header");
  if (bytes > window_size(ru)) return fail("message larger than its window");
  FragmentHeader header;  // a copy: the head may lie anywhere (in place: the caller's)
  std::memcpy(&header, head, sizeof header);
  const FragmentHeader* h = &header;
  if (h->magic != kFragmentMagic) return fail("bad magic");
  if (header_checksum(*h) != h->header_crc) return fail("header checksum mismatch");
  const uint16_t version = events_ > 1 ? kMepFragmentVersion : kFragmentVersion;
  if (h->version != version)
    return fail("header version " + std::to_string(h->version) + ", expected " +
                std::to_string(version));
  // Version 2 writes zeros there (3 in `reserved`): a header that says more
  // is not one we know.
  if (h->reserved != 0 || (events_ == 1 && (h->events != 0 || h->table_crc != 0)))
    return fail("reserved header bytes set");
  if (events_ > 1 && h->events != events_)
    return fail("a MEP of " + std::to_string(h->events) + " events, configured " +
                std::to_string(events_) + " (fragment.events)");
  if (bytes < head_) return fail("message shorter than its header and MEP table");
  if (h->ru != static_cast<uint32_t>(ru)) return fail("header names RU " + std::to_string(h->ru));
  if (h->bu != static_cast<uint32_t>(index_))
    return fail("header names BU " + std::to_string(h->bu));
  if (h->meta_segments != config_.fragment.meta_segments ||
      h->meta_size != config_.fragment.meta_size)
    return fail("metadata " + std::to_string(h->meta_segments) + " x " +
                std::to_string(h->meta_size) + " B, configured " +
                std::to_string(config_.fragment.meta_segments) + " x " +
                std::to_string(config_.fragment.meta_size) + " B");
  // meta is at most 65535 x 4 GiB; bytes >= the head: nothing below wraps.
  const uint64_t meta = static_cast<uint64_t>(h->meta_size) * h->meta_segments;
  const uint64_t body = bytes - head_;
  if (meta > body || h->payload_size != body - meta)
    return fail("size " + std::to_string(bytes) + " does not match the header");
  const uint8_t* table = head + sizeof(FragmentHeader);
  if (events_ > 1 && verify_payload_)
    if (std::string why = table_problem(*h, table); !why.empty()) return fail(why);
  if (verify_payload_ && should_verify(h->event_id, ru)) {
    first_seen_[ru] = 1;
    ++integrity_.verified;
    if (crc32c(data, body) != h->crc32c) return fail("metadata/payload checksum mismatch");
  }
  // Sound in every other respect: the slot takes its first label (PUSH), and
  // a fragment of another event is out of sync, not corrupt.
  if (e.event == kEventFromHeader) {
    e.event = h->event_id;
    e.label_ru = ru;
  }
  int64_t wrong = -1;
  if (h->event_id != e.event) {
    out_of_sync_ = {s, ru, e.event, h->event_id, e.label_ru};
  } else if (events_ > 1 && verify_payload_ && (wrong = wrong_event(e.event, table)) >= 0) {
    // The label is right but an event inside is not: this RU's, whatever the label's source.
    uint64_t labelled = 0;
    std::memcpy(&labelled, table + wrong * sizeof(MepEntry), sizeof labelled);
    out_of_sync_ = {s, ru, e.event * events_ + wrong, labelled, -1, true, e.event};
  }
  if (h->event_id != e.event || wrong >= 0) {
    last_out_of_sync_ = true;
    e.desync = true;
    e.have[ru] = 1;
    ++e.received;
    e.bytes += bytes;
    return false;
  }
  e.have[ru] = 1;
  ++e.received;
  e.bytes += bytes;
  if (ru == index_) e.own_bytes += bytes;
  return true;
}

}  // namespace evb
