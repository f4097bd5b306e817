#pragma once
// ReadoutUnit (RU): owns the fragment ring and describes the fragment of any
// event. The ring (`ru_buffer` bytes) is filled once with pseudo-random data;
// checksums of metadata + payload are precomputed per ring slot as 4 KiB
// prefix CRCs over the payload (starting from the metadata's CRC), so a
// fragment of any size costs at most 4 KiB of CRC work when it is sent.
// Each slot starts with room for the fragment header, so header, metadata and
// payload can leave as one contiguous segment (a single copy for MPI's
// shared-memory transport, one iovec for TCP) whenever no other send from the
// same slot is in flight. No I/O: the protocol turns a FragmentView into
// driver segments.
// A desync fault (faults: {desync: ruN, by: K}) shifts the events it serves:
// asked for event e it describes and labels the fragment of e + K (its
// size, checksum and header event id), well formed, on every path a
// fragment leaves by (both go through fragment() and fill_header()). The
// shift is an addition of 0 until then: no branch on the hot path.
// With fragment.events = p > 1 the protocol's event id names a MEP: the
// fragment of MEP m carries events p*m .. p*m+p-1, each sized as one event
// (fragment_sizes.hpp), their payloads back to back in the slot, and the
// head room holds the header and its table of p events (core/messages.hpp).
// A desync by K shifts event numbers (served events p*m+K+i); the header
// labels the MEP holding the first of them, so a shift by a multiple of p
// shows in the label and any other in the table.
#include <cstdint>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/config.hpp"
#include "core/messages.hpp"

namespace evb {

struct FragmentView {
  size_t slot = 0;                // ring slot the fragment lives in
  uint8_t* header = nullptr;      // room for the head (header, MEP table) right before `meta`
  const uint8_t* meta = nullptr;  // meta_segments x meta_size contiguous bytes
  const uint8_t* payload = nullptr;
  uint64_t payload_size = 0;
  uint32_t crc = 0;  // of metadata + payload
};

class ReadoutUnit {
 public:
  ReadoutUnit(int index, const Config& config);

  int index() const { return index_; }
  // The fragment of `event` served from ring slot `slot` (home_slot(event)
  // normally; any slot is valid: the header carries the slot's checksum).
  FragmentView fragment(uint64_t event, size_t slot) const;
  FragmentView fragment(uint64_t event) const { return fragment(event, home_slot(event)); }
  // Events rotate through the ring, so a large ring streams from memory.
  size_t home_slot(uint64_t event) const { return event % slots_; }
  // Fills `h` for `event` going to `bu`, and for p > 1 the MEP table right
  // behind it (`h` must have head_bytes() of room); bumps the sequence counter.
  void fill_header(FragmentHeader& h, const FragmentView& f, uint64_t event, int bu);
  // From now on, serve event e + `by` when asked for e (fault injection).
  void desync(int64_t by) { shift_ = static_cast<uint64_t>(by); }
  // The event (p > 1: the MEP) whose fragment is served when `event` is
  // asked for: the label its header carries.
  uint64_t served_event(uint64_t event) const {
    return events_ == 1 ? event + shift_ : event + floor_div(shift_, events_);
  }
  // Bytes of header and MEP table (ring_geometry.hpp head_bytes).
  uint64_t head_bytes() const { return head_; }

  // The header room at the start of ring slot `slot`.
  FragmentHeader* slot_header(size_t slot) {
    return reinterpret_cast<FragmentHeader*>(ring_.data() + slot * stride_);
  }
  AlignedBuffer& memory() { return ring_; }
  size_t slots() const { return slots_; }
  // What RU `index` of `config` allocates, without allocating it (the
  // memory check before a run, apps/evbench/memory_plan.hpp): its ring
  // (slots x slot stride) and its table of checksum prefixes.
  static uint64_t slot_stride(const Config& config, int index);
  static uint64_t ring_bytes(const Config& config, int index);
  static uint64_t checksum_table_bytes(const Config& config, int index);
  uint64_t fragments_sent() const { return sequence_; }
  // Run-time control: events from `from_event` on have this RU's
  // ru_rate_factors entry `factor` (sizes still clamped to what the ring
  // holds); events before keep the factor they were assigned under.
  void set_rate_factor(double factor, uint64_t from_event);
  double rate_factor() const { return factors_.empty() ? start_factor_ : factors_.back().second; }

 private:
  double factor_of(uint64_t event) const;
  // The payload of event number `ev` served within MEP `event`'s fragment.
  uint64_t event_payload(uint64_t event, uint64_t ev) const;
  // The shift (int64 as its bits) divided by p, rounded down.
  static uint64_t floor_div(uint64_t shift, uint64_t p) {
    const int64_t k = static_cast<int64_t>(shift);
    const int64_t pp = static_cast<int64_t>(p);
    return static_cast<uint64_t>(k / pp - (k % pp < 0 ? 1 : 0));
  }
  static constexpr uint64_t kCrcBlock = 4096;
  const Config& config_;
  int index_;
  uint64_t meta_bytes_;
  uint64_t events_;  // fragment.events (p)
  uint64_t head_;    // header + MEP table bytes
  uint64_t max_payload_;
  uint64_t stride_;
  size_t slots_;
  AlignedBuffer ring_;
  std::vector<uint32_t> prefix_crc_;  // slots_ x (blocks+1)
  size_t blocks_per_slot_;
  uint64_t sequence_ = 0;
  uint64_t shift_ = 0;  // desync: added to every event asked for (modulo 2^64)
  double start_factor_ = 1;
  std::vector<std::pair<uint64_t, double>> factors_;  // (first event, factor), ascending
};

}  // namespace evb
