#pragma once
// Wire formats shared by all protocols: commands and fragment headers.
//
// Commands are small fixed structs sent padded to `command_size` bytes.
// Fragments travel as one gathered message: FragmentHeader, then metadata
// segments, then data (payload) segments. Two CRC32Cs: `crc32c` covers the
// metadata and the payload (contiguous behind the header), `header_crc` the
// 64 header bytes themselves (with header_crc = 0), so a flipped bit anywhere
// in a fragment is caught. Tags keep channels apart when RU and BU share a rank.
//
// Multi-event fragments (MEPs, fragment.events = p > 1) use header version 3:
// the header (still 64 bytes) names the MEP in `event_id` (events p*id ..
// p*id+p-1), `events` = p, and is followed by a table of p MepEntry (event
// number, payload bytes), then metadata, then the p payloads back to back.
// `table_crc` (CRC32C of the table) sits in the header, so header_crc covers
// the table too; crc32c still covers metadata + payload. Version 2 (p = 1)
// has no table and zeros in `events` and `table_crc`.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/crc32c.hpp"

namespace evb {

constexpr uint32_t kCommandMagic = 0x45564231;   // "EVB1"
constexpr uint32_t kFragmentMagic = 0x46524731;  // "FRG1"
constexpr uint16_t kFragmentVersion =
    2;  // FragmentHeader layout (2: header_crc, metadata in crc32c)
constexpr uint16_t kMepFragmentVersion = 3;  // 3: a MEP, a table of events behind the header
// The largest packing factor (fragment.events): bounds the table a BU reads
// (16 B per event: 256 KiB at most).
constexpr uint32_t kMaxMepEvents = 16384;

enum class CommandType : uint16_t {
  credit = 1,        // BU -> EVM: slot free (carries the finished event, if any)
  assign = 2,        // EVM -> BU (pull): build event_id in slot
  pull_request = 3,  // BU -> RU: send event_id's fragment into slot
  push_assign = 4,   // EVM -> RU (push): send event_id's fragment to bu/slot
  stop = 5,          // EVM -> all: no more events; finish and leave
  bu_done = 6,       // BU -> RU (pull-noevm): this BU will pull no more
  bench = 7,         // micro-benchmarks: a command segment
  heartbeat = 8,     // BU -> EVM (on_failure exclude): still alive
  exclude = 9,       // EVM -> RU, BU (on_failure exclude): BU `bu` is out of the run
  release = 10,      // EVM -> RU (on_failure exclude): every event below `value` is built
  // BU -> EVM: a fragment in `slot` is out of sync: RU `ru` labelled it
  // `event_id`; `count` = kNoRu: the BU knows the slot builds `value` (PULL),
  // else RU `count`'s header labelled the slot `value` (PUSH: which one is
  // wrong is for the EVM to say). EVM -> BU (PUSH): the answer, RU `ru`
  // labelled its fragment `value` in the slot assigned `event_id`.
  desync = 11,
  mask = 12,  // EVM -> BU (on_ru_loss mask): RU `ru` is masked (out of sync): build without it
  // Any rank -> the EVM's rank (the monitor, Channel::monitor): this rank's
  // figures, one record per command; `slot` says which (MonitorStat).
  stats = 13,
  // The EVM's rank -> every rank (Channel::control): a run-time change;
  // `slot` names the knob (ControlKnob), `event_id` the first event under it.
  control = 14,
  // Several commands of one kind in one message (batch.events > 1): `count`
  // commands follow this header, each whole (core/command_batch.hpp).
  batch = 15,
};
// What a stats command carries (Command::slot). Every record also carries
// the interval it covers by the sender's clock: pad[0] its start, pad[1] its
// end (int64 ns as their bits; the counters are totals at the end).
enum class MonitorStat : uint32_t {
  bu = 0,          // bu; bytes: fragment bytes received; event_id: fragments; count:
                   // requests in flight; value: integrity errors; ru: events waiting for an FU
  latency = 1,     // bu; event_id, bytes, value: latency p50, p90, p99 in ns
  matrix = 2,      // bu; ru: first RU; count: entries (1..3); event_id, bytes, value:
                   // fragment bytes received from RUs ru, ru+1, ru+2 (over 64 nodes:
                   // RU groups, each the sum of its RUs: monitor/traffic.hpp)
  ru = 3,          // ru; bytes: fragment bytes sent; event_id: fragments sent
  background = 4,  // a congestor rank: bu: its background entry; ru: its member index;
                   // event_id: messages sent; bytes: bytes sent; value: bytes received;
                   // count: 1 while it sends or waits for what it sent
};
// Which knob a control command sets (Command::slot); the value is in
// Command::value (an integer, or a double's bits).
enum class ControlKnob : uint32_t {
  parallel = 0,         // BU: fragment requests in flight per event
  processing_time = 1,  // BU: the FUs' time per event (double seconds)
  rate_factor = 2,      // RU `ru`: its ru_rate_factors entry (double)
  pause = 3,            // every rank: value 1 paused, 0 running (no progress is not a fault)
  background = 4,       // congestor ranks of entry `bu`: value 1 sends, 0 stops (POST /control)
};
constexpr uint32_t kNoRu = UINT32_MAX;

struct Command {
  uint32_t magic = kCommandMagic;
  CommandType type{};
  uint16_t reserved = 0;
  uint64_t event_id = 0;
  uint32_t slot = 0;
  uint32_t bu = 0;     // BU index
  uint32_t ru = 0;     // RU index
  uint32_t count = 0;  // credit: 1 if the BU counted the finished event in its window
  uint64_t bytes = 0;  // credit: payload bytes of the finished event (0: not built)
  uint64_t value = 0;  // credit: 1 if the slot carries a finished event, 2 if
                       // that event was built without a masked RU (on_ru_loss mask);
                       // release: the watermark; under on_failure exclude, assign,
                       // push_assign and pull_request: the last watermark the EVM
                       // had released to the RUs when it assigned the event
  uint64_t pad[2] = {0, 0};
};
static_assert(sizeof(Command) == 64, "commands are 64 bytes on the wire");

// Reads the command at the front of `size` received bytes into `out`. False
// when the message is shorter than a command or lacks the magic (the caller
// refuses it, naming the peer); the command's fields are checked by whoever
// it is addressed to (type, sender, slot).
inline bool decode_command(const void* bytes, size_t size, Command* out) {
  if (size < sizeof(Command)) return false;
  std::memcpy(out, bytes, sizeof(Command));
  return out->magic == kCommandMagic;
}

struct FragmentHeader {
  uint32_t magic = kFragmentMagic;
  uint16_t version = kFragmentVersion;
  uint16_t meta_segments = 0;
  uint64_t event_id = 0;
  uint32_t ru = 0;  // RU index that built it
  uint32_t bu = 0;  // destination BU index
  uint64_t sequence =
      0;  // RU's running fragment counter (covered by header_crc; order not checked)
  uint64_t payload_size = 0;  // bytes in data segments
  uint32_t meta_size = 0;     // bytes per metadata segment
  uint32_t crc32c = 0;        // of metadata + payload
  uint32_t header_crc = 0;    // of this header with header_crc = 0
  uint32_t events = 0;        // v3: events in the MEP (entries in the table); v2: 0
  uint32_t table_crc = 0;     // v3: CRC32C of the event table; v2: 0
  uint32_t reserved = 0;
};
static_assert(sizeof(FragmentHeader) == 64, "fragment headers are 64 bytes");

// One event of a MEP (header version 3): its event number and its payload
// bytes; the payloads follow the metadata in table order.
struct MepEntry {
  uint64_t event = 0;
  uint64_t size = 0;
};
static_assert(sizeof(MepEntry) == 16, "MEP table entries are 16 bytes");

// CRC32C of `h` with its header_crc field taken as 0.
inline uint32_t header_checksum(FragmentHeader h) {
  h.header_crc = 0;
  return crc32c(&h, sizeof h);
}

// Tags: low 3 bits name the channel, the rest the BU slot (data only).
enum class Channel : uint32_t {
  to_evm = 1,
  to_ru = 2,
  to_bu = 3,
  data = 4,
  bench = 5,
  monitor = 6,  // stats to the monitor (does not count as progress)
  control = 7,  // run-time changes from the EVM's rank
};
inline uint32_t command_tag(Channel c) {
  return static_cast<uint32_t>(c);
}
inline uint32_t data_tag(uint32_t slot) {
  return (slot << 3) | static_cast<uint32_t>(Channel::data);
}
// The channel bits of a tag (a value outside the enumerators when the tag is
// not one of the above).
inline uint32_t tag_channel(uint32_t tag) {
  return tag & 7u;
}

}  // namespace evb
