#pragma once
// Internals shared by the micro-benchmark files (microbench_*.cpp): the
// header every bench data message starts with, the bench tags and command
// codes, and the sender's rotating data pool. Not part of the protocol API.
#include <algorithm>
#include <cstdint>

#include "core/aligned_buffer.hpp"
#include "core/config.hpp"
#include "core/messages.hpp"
#include "core/topology.hpp"
#include "drivers/api/bootstrap.hpp"
#include "drivers/api/driver.hpp"
#include "protocols/microbench/microbench_stats.hpp"

namespace evb::micro {

constexpr uint32_t kBenchMagic = 0x4D42454E;  // "MBEN"

// Which micro-benchmark config.protocol names (each registered under its
// YAML name by microbench_register.cpp).
enum class Pattern { one_to_one, many_to_one, gather, gather_cmd, gather_cmd_meta, alltoall };
Pattern pattern_of(const Config& config);

// First bytes of every bench data message (and of every alltoall block).
// Receivers check magic, source, target and step; a mismatch counts as corrupt.
struct BenchHeader {
  uint32_t magic = kBenchMagic;
  uint32_t source = 0;  // RU index (alltoall: rank) that sent it
  uint32_t target = 0;  // BU index (alltoall: rank) it is meant for
  uint32_t step = 0;    // shift-scan step
  uint64_t sequence = 0;
  uint64_t reserved = 0;
};
static_assert(sizeof(BenchHeader) == 32, "bench headers are 32 bytes");

// Bench data uses data_tag() slots far above any BU slot, one pair per step,
// so a message of one step can never match a receive of another.
constexpr uint32_t kBenchSlotBase = 1u << 24;
enum class BenchStream : uint32_t { data = 0, meta = 1 };
inline Tag bench_tag(int step, BenchStream s) {
  return data_tag(kBenchSlotBase + static_cast<uint32_t>(step) * 2 + static_cast<uint32_t>(s));
}

// Command.slot of a CommandType::bench command; Command.event_id is the step.
enum class BenchOp : uint32_t {
  credit = 1,   // BU -> RU: `count` more exchanges may be sent (write: into arena slots
                //   value, value + 1, ... of one source, wrapping within its slots)
  final = 2,    // RU -> BU: stopped; `bytes` = exchanges sent in this step
  ack = 3,      // BU -> RU: final seen; `bytes` = credits sent in this step
  segment = 4,  // RU -> BU: the command segment of one exchange (gather-cmd*)
};

// Bytes of one data message: fragment.size, but at least the header.
inline uint64_t data_message_size(const Config& c) {
  return c.fragment.size < sizeof(BenchHeader) ? sizeof(BenchHeader) : c.fragment.size;
}
// Receive slots per source (`receive_slots`) and the credits that circulate
// per source (docs/MICROBENCH.md "Receive slots", "One credit for several slots"). `parallel` is
// the sender's window; the receiver holds `extra` credits beyond it, so it
// may return freed slots several to a credit (every `credit_batch` of them)
// while the sender still has a window's worth to send on. Unset,
// receive_slots is the window plus that extra, one slot per credit (every
// header checked): 2 at parallel 1 (the next message never waits for the
// credit of the one before, as the tools pay no such round trip), 48 at 32;
// but one at parallel 1 where the driver moves the data through shared
// memory (Config::shared_memory_path): there the credit's round trip is a
// few microseconds and a second 512 KiB slot costs more in cache than it
// hides; and one where each message sent moves by a read rendezvous
// (ofi_rxm's default above 128 KiB), which the second posted receive slows
// by a third (docs/MICROBENCH.md, "Receive slots").
// Set, it is read as given: more slots than the window are all credited;
// fewer share a slot between messages in flight (their headers are then
// checked only when no other message was in flight into the slot), and the
// credits are the window plus the extra, naming shared slots.
inline uint32_t window_of(const Config& c) {
  return static_cast<uint32_t>(std::max(1, c.parallel));
}
// Credits the receiver may hold back beyond the window when unset or shared.
inline uint32_t default_extra_credits(const Config& c) {
  return (window_of(c) + 1) / 2;
}
// Why unset receive_slots at parallel 1 is one slot: the data moves through
// shared memory, or each message sent moves by a read rendezvous
// (Config::read_rendezvous_above); "" otherwise.
inline const char* one_slot_reason(const Config& c) {
  if (c.receive_slots != 0 || window_of(c) != 1) return "";
  if (c.shared_memory_path) return "shared memory";
  const bool sends = c.data_path == DataPath::send;
  if (sends && c.read_rendezvous_above > 0 && data_message_size(c) > c.read_rendezvous_above)
    return "read rendezvous";
  return "";
}
inline bool one_slot_by_path(const Config& c) {
  return *one_slot_reason(c) != '\0';
}
inline uint32_t receive_slots_of(const Config& c) {
  if (c.receive_slots > 0) return static_cast<uint32_t>(c.receive_slots);
  return one_slot_by_path(c) ? 1 : window_of(c) + default_extra_credits(c);
}
inline bool shares_slots(const Config& c) {
  return receive_slots_of(c) < window_of(c);
}
// Credits in circulation per source: posted receives (send) or credited
// slots (write), each naming a slot.
inline uint32_t credit_tickets_of(const Config& c) {
  return shares_slots(c) ? window_of(c) + default_extra_credits(c) : receive_slots_of(c);
}
// Freed slots the receiver returns in one credit: half of the credits beyond
// the window, at least 1 (one per message, as before, when there are none
// or one). Never more than the extra, so the sender never runs dry while
// the receiver holds them, and never deadlocks: the sender sends on every
// credit it holds, each landed message frees a slot, and a batch is never
// more than the credits in circulation.
inline uint32_t credit_batch_of(const Config& c) {
  const uint32_t tickets = credit_tickets_of(c);
  const uint32_t window = window_of(c);
  const uint32_t extra = tickets > window ? tickets - window : 0;
  return std::max<uint32_t>(1, (extra + 1) / 2);
}
// Bytes of one metadata message (gather-cmd-meta): fragment.meta_size or 10 KiB.
inline uint64_t meta_message_size(const Config& c) {
  return c.fragment.meta_size ? c.fragment.meta_size : 10 * 1024;
}

// The sender's data: `ru_buffer` bytes (at least `min_bytes`) filled once
// with pseudo-random bytes; take() hands out consecutive chunks and wraps,
// so a small pool stays cache-resident and a large one (>= 256 MiB) streams
// from main memory, like the event builder's RU ring.
class DataPool {
 public:
  DataPool(uint64_t bytes, uint64_t min_bytes, uint64_t seed, PageSize pages);
  // The bytes such a pool allocates.
  static uint64_t size_for(uint64_t bytes, uint64_t min_bytes) {
    return std::max<uint64_t>({bytes, min_bytes, 64});
  }
  uint8_t* take(uint64_t n);
  uint8_t* data() const { return buffer_.data(); }
  size_t size() const { return buffer_.size(); }

 private:
  AlignedBuffer buffer_;
  uint64_t offset_ = 0;
};

// The most RUs that send to BU `bu` in one step (how run_point_to_point
// sizes the receive arena); 0 for a rank without a BU (bu < 0).
size_t max_sources_of(const Config& config, int bu);

// The MPI_Alltoall baseline (microbench_alltoall.cpp); returns the
// process's transparent huge page bytes while its buffers were held.
uint64_t run_alltoall(Driver& driver, Bootstrap& boot, const Topology& topo, const Config& config,
                      MicrobenchStats& stats);

}  // namespace evb::micro
