#pragma once
// BuilderUnit (BU): the event slots (one per credit), their buffers, and the
// checks made on every arriving fragment. The protocol decides which RU to
// ask next; the BU records what arrived and whether it is sound.
//
// Slot buffer layout: WindowLayout (per slot, one window per RU). Every
// fragment's header is checked: its own checksum (so no field, the sequence
// number and version included, can change unnoticed), magic, version, the
// reserved bytes (zero), event id, RU and BU index, the metadata layout against the configuration,
// and that the sizes it names add up to the bytes received (checked without overflow before any
// checksum reads the payload). The order of sequence numbers is not checked (one RU's fragments to
// one BU need not arrive in order). The checksum of metadata + payload is checked on a sample,
// unless payload checks are off (verify.payload; `evbench sim`, whose payloads are shared).
// Integrity counters: corrupt (bad header, size or checksum), duplicate
// (second fragment from one RU for one event), incomplete (events left
// unfinished when the run ended), out_of_sync (a sound fragment labelled with
// another event than its slot's: its RU lost event synchronisation).
// A multi-event fragment (fragment.events = p > 1, header version 3) also
// has its table checked before its payload is read (core/messages.hpp): the
// table's checksum, p entries exactly, sizes that add up to the payload
// without overflow; and once the label matches, each entry's event number
// (p*MEP + i): one that does not is out of sync, named by its event. The
// table, like the payload, is not checked where payloads are not.
// The event id is checked last: a fragment whose header is sound in every
// other respect but names another event is not corrupt but out of sync
// (recorded for the agent, out_of_sync(); the event is not built). The agent
// names the RU and counts it: in PUSH the slot's event came from the first
// sound header, so which of the two RUs is wrong is the EVM's to say.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/aligned_buffer.hpp"
#include "core/config.hpp"
#include "core/histogram.hpp"
#include "core/messages.hpp"
#include "units/window_layout.hpp"

namespace evb {

struct IntegrityCounters {
  uint64_t corrupt = 0;
  uint64_t duplicate = 0;
  uint64_t incomplete = 0;
  uint64_t verified = 0;    // fragments whose payload checksum was checked
  uint64_t bad_events = 0;  // events that completed with a corrupt fragment
  // Fragments named out of sync (their RU serves another event than asked
  // for), and events that completed with one (not built, not corrupt).
  uint64_t out_of_sync = 0;
  uint64_t out_of_sync_events = 0;
  // fault.corrupt: fragments this BU corrupted on arrival, and of those the
  // ones its checks refused (must be all).
  uint64_t injected = 0;
  uint64_t injected_detected = 0;
  // The same per place hit: header, metadata, payload (kCorruptRegions).
  std::array<uint64_t, 3> injected_in{};
  std::array<uint64_t, 3> detected_in{};
};
inline constexpr std::array<const char*, 3> kCorruptRegions{"header", "metadata", "payload"};

enum class SlotState { free, building, complete };

struct EventSlot {
  SlotState state = SlotState::free;
  uint64_t event = 0;
  int next = 0;            // next position in the visit order
  int in_flight = 0;       // requests outstanding
  int received = 0;        // fragments arrived
  uint64_t bytes = 0;      // bytes received (headers + meta + payload)
  uint64_t own_bytes = 0;  // of those, the fragment of the BU's own node's RU
  int64_t started_ns = 0;
  bool bad = false;           // a fragment failed its checks
  bool desync = false;        // a sound fragment was labelled with another event
  int label_ru = -1;          // PUSH: the RU whose header gave `event` (-1: assigned)
  std::vector<int> order;     // RU visit order
  std::vector<uint8_t> have;  // per RU: fragment arrived
};

// A sound fragment labelled with another event than its slot's: RU `ru`'s
// fragment in `slot` names event `labelled` where the slot builds `expected`
// (taken from RU `expected_from`'s header in PUSH; -1: assigned). `in_mep`:
// the label matched but an event inside MEP `mep` did not; `expected` and
// `labelled` are then event numbers (the BU knows the RU: expected_from -1).
struct OutOfSync {
  uint32_t slot = 0;
  int ru = 0;
  uint64_t expected = 0;
  uint64_t labelled = 0;
  int expected_from = -1;
  bool in_mep = false;
  uint64_t mep = 0;
};

class BuilderUnit {
 public:
  // `memory`: memory_bytes(config) bytes the caller owns and keeps for the
  // BU's lifetime (the driver's allocate_memory, so peers can write into
  // it); null: the BU allocates its own.
  BuilderUnit(int index, const Config& config, uint8_t* memory = nullptr);
  static size_t memory_bytes(const Config& config) { return WindowLayout(config).total(); }

  int index() const { return index_; }
  const Config& config() const { return config_; }
  int nru() const { return nru_; }
  std::vector<EventSlot>& slots() { return slots_; }
  const std::vector<EventSlot>& slots() const { return slots_; }
  EventSlot& slot(uint32_t s) { return slots_.at(s); }
  uint8_t* window(uint32_t slot, int ru) { return base_ + layout_.offset(slot, ru); }
  size_t window_size(int ru) const { return layout_.size(ru); }
  const WindowLayout& layout() const { return layout_; }
  std::span<uint8_t> memory() { return {base_, layout_.total()}; }

  // An event id the slot takes from the first fragment whose header is sound
  // (PUSH: the EVM tells the RUs, not the BU).
  static constexpr uint64_t kEventFromHeader = UINT64_MAX;
  // Opens `slot` for `event`, visiting RUs in `order` (copied: the slot's
  // vectors keep their capacity from event to event).
  void start(uint32_t slot, uint64_t event, std::span<const int> order, int64_t now_ns);
  bool payload_checks() const { return verify_payload_; }
  // Checks the fragment that arrived from RU `ru` into `slot` (`bytes` long)
  // and records it. A corrupt fragment is counted, marks the event bad and
  // still counts as arrived (the event completes and is not counted built);
  // a duplicate is counted and ignored. Returns false for both.
  // With fault.corrupt, first flips one seeded bit of the fragment (header,
  // metadata or payload) with that probability, and counts whether the
  // checks caught it.
  bool accept(uint32_t slot, int ru, size_t bytes);
  // The same checks for a fragment that is not in the slot's window: its
  // head `head` (header, then for p > 1 its MEP table: head_bytes() bytes)
  // and `body` (metadata + payload) where they lie (the RU ring of this
  // process, local_fragment in_place). No corruption is injected here.
  // `bytes` counts the head too.
  bool accept_in_place(uint32_t slot, int ru, const uint8_t* head, const uint8_t* body,
                       size_t bytes);
  // Bytes of header and MEP table in front of the metadata.
  uint64_t head_bytes() const { return head_; }
  bool complete(uint32_t slot) const { return slots_.at(slot).received == nru_; }
  // Whether `slot` is building and has every fragment but those of RUs
  // flagged in `lost` (per RU), missing at least one: complete once those
  // are left out (the BU builds it masked, or finishes it incomplete).
  bool complete_but(uint32_t slot, const std::vector<uint8_t>& lost) const;
  void release(uint32_t slot) { reset(slots_.at(slot)); }

  IntegrityCounters& integrity() { return integrity_; }
  // The first problem seen (reported with the counters), empty when none.
  const std::string& first_problem() const { return first_problem_; }
  // Records `what` as the first problem unless one came before.
  void note_problem(const std::string& what) {
    if (first_problem_.empty()) first_problem_ = what;
  }
  // The fragment the last accept() or accept_in_place() found out of sync;
  // null when that fragment was not (sound, corrupt or a duplicate).
  const OutOfSync* out_of_sync() const { return last_out_of_sync_ ? &out_of_sync_ : nullptr; }

 private:
  bool should_verify(uint64_t event, int ru) const;
  static void reset(EventSlot& e);  // back to free, keeping the vectors' capacity
  bool check(uint32_t slot, int ru, const uint8_t* head, const uint8_t* body, size_t bytes);
  // p > 1: what is wrong with the MEP table behind `h` ("" when sound).
  std::string table_problem(const FragmentHeader& h, const uint8_t* table) const;
  // p > 1: the first entry whose event is not p*`mep` + i, or -1.
  int64_t wrong_event(uint64_t mep, const uint8_t* table) const;
  // Returns the region hit (index into kCorruptRegions), or -1: none.
  int inject_corruption(uint32_t slot, int ru, size_t bytes);

  const Config& config_;
  int index_;
  int nru_;
  uint64_t events_;  // fragment.events (p)
  uint64_t head_;    // header + MEP table bytes
  uint64_t verify_threshold_;
  bool verify_payload_;  // payload_checks(config)
  WindowLayout layout_;
  AlignedBuffer own_;  // when the caller gave no memory
  uint8_t* base_ = nullptr;
  std::vector<EventSlot> slots_;
  std::vector<uint8_t> first_seen_;  // per RU: first fragment verified already
  IntegrityCounters integrity_;
  std::string first_problem_;
  uint64_t arrivals_ = 0;  // fragments seen, for the seeded fault draws
  bool last_out_of_sync_ = false;
  OutOfSync out_of_sync_;
};

}  // namespace evb
