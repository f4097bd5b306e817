// libFuzzer target: the fragment-header check a BU makes on every arriving
// fragment (BuilderUnit::accept: header v2, header CRC, ids, metadata layout,
// size arithmetic, metadata + payload CRC). The first input byte chooses
// repairs that let the fuzzer past the checksums (set the ids the slot
// expects, recompute the payload CRC, recompute the header CRC), the RU it
// comes from and whether the slot takes its event id from the header (PUSH);
// the rest is the fragment as it landed in the RU's window.
//
// Asserts: an accepted fragment fits its window, its sizes add up to the
// bytes received, its checksums hold, it names the slot's event, its RU and
// this BU, and its header re-encodes (as a readout unit writes one) to the
// same 64 bytes; each refusal is counted exactly once as corrupt, unless the
// header is sound in every respect but its event id (out of sync: not
// corrupt, recorded with both events); a second fragment from the same RU is
// a duplicate.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "core/config_loader.hpp"
#include "core/crc32c.hpp"
#include "core/messages.hpp"
#include "fuzz_assert.hpp"
#include "units/builder_unit.hpp"

namespace {

using namespace evb;

constexpr int kBu = 1;
constexpr uint64_t kEvent = 42;

// 2 nodes, small fragments with metadata, every payload checksum verified.
const Config& fuzz_config() {
  static const Config config = load_config_text(
      "nodes: 2\nfragment: {size: 256, meta_segments: 2, meta_size: 8}\n"
      "verify: {sample: 1}\n",
      "fuzz_fragment_header", {}, PluginKeys{});
  return config;
}

FragmentHeader canonical(const FragmentHeader& h) {
  FragmentHeader c{};
  c.event_id = h.event_id;
  c.ru = h.ru;
  c.bu = h.bu;
  c.sequence = h.sequence;
  c.payload_size = h.payload_size;
  c.meta_segments = h.meta_segments;
  c.meta_size = h.meta_size;
  c.crc32c = h.crc32c;
  c.header_crc = header_checksum(c);
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static BuilderUnit bu(kBu, fuzz_config());
  const Config& config = fuzz_config();
  const uint8_t flags = data[0];
  const int ru = (flags >> 4) % config.nodes;
  const bool from_header = flags & 8;
  const size_t bytes = size - 1;
  const size_t window = bu.window_size(ru);
  uint8_t* w = bu.window(0, ru);
  std::memcpy(w, data + 1, std::min(bytes, window));

  if (bytes >= sizeof(FragmentHeader) && bytes <= window) {
    FragmentHeader h;
    std::memcpy(&h, w, sizeof h);
    if (flags & 1) {
      h.event_id = from_header ? h.event_id : kEvent;
      h.ru = static_cast<uint32_t>(ru);
      h.bu = kBu;
      h.meta_segments = static_cast<uint16_t>(config.fragment.meta_segments);
      h.meta_size = static_cast<uint32_t>(config.fragment.meta_size);
      h.payload_size = bytes - sizeof h - uint64_t{h.meta_size} * h.meta_segments;
    }
    if (flags & 2) h.crc32c = crc32c(w + sizeof h, bytes - sizeof h);
    if (flags & 4) h.header_crc = header_checksum(h);
    std::memcpy(w, &h, sizeof h);
  }

  const int order[2] = {0, 1};
  bu.start(0, from_header ? BuilderUnit::kEventFromHeader : kEvent, order, 0);
  const IntegrityCounters before = bu.integrity();
  const bool ok = bu.accept(0, ru, bytes);
  const IntegrityCounters& after = bu.integrity();
  if (ok) {
    FUZZ_ASSERT(bytes >= sizeof(FragmentHeader) && bytes <= window, "accepted lengths fit");
    FragmentHeader h;
    std::memcpy(&h, w, sizeof h);
    const FragmentHeader c = canonical(h);
    FUZZ_ASSERT(std::memcmp(&c, w, sizeof c) == 0,
                "an accepted header re-encodes to the same bytes");
    FUZZ_ASSERT(h.magic == kFragmentMagic && h.version == kFragmentVersion, "magic and version");
    FUZZ_ASSERT(sizeof h + uint64_t{h.meta_size} * h.meta_segments + h.payload_size == bytes,
                "the sizes add up to the bytes received");
    FUZZ_ASSERT(crc32c(w + sizeof h, bytes - sizeof h) == h.crc32c, "the payload checksum holds");
    FUZZ_ASSERT(h.event_id == bu.slot(0).event && (from_header || h.event_id == kEvent),
                "it names the slot's event");
    FUZZ_ASSERT(h.ru == static_cast<uint32_t>(ru) && h.bu == kBu, "it names its RU and this BU");
    FUZZ_ASSERT(after.corrupt == before.corrupt && after.verified == before.verified + 1,
                "an accepted fragment was verified and not counted corrupt");
  } else if (const OutOfSync* o = bu.out_of_sync()) {
    FragmentHeader h;
    std::memcpy(&h, w, sizeof h);
    FUZZ_ASSERT(after.corrupt == before.corrupt, "out of sync is not corrupt");
    FUZZ_ASSERT(!from_header && o->expected == kEvent && o->labelled == h.event_id &&
                    h.event_id != kEvent && o->ru == ru,
                "out of sync: an assigned slot, both events as they are");
    FUZZ_ASSERT(header_checksum(h) == h.header_crc && h.ru == static_cast<uint32_t>(ru) &&
                    h.bu == kBu &&
                    sizeof h + uint64_t{h.meta_size} * h.meta_segments + h.payload_size == bytes,
                "out of sync: the header is sound otherwise");
    FUZZ_ASSERT(bu.slot(0).desync && !bu.slot(0).bad, "out of sync marks the event, not bad");
  } else {
    FUZZ_ASSERT(after.corrupt == before.corrupt + 1, "a refusal is counted corrupt once");
    FUZZ_ASSERT(bu.slot(0).bad, "a refusal marks the event bad");
  }
  FUZZ_ASSERT(bu.slot(0).received == 1, "the fragment counts as arrived either way");
  const uint64_t duplicates = bu.integrity().duplicate;
  FUZZ_ASSERT(!bu.accept(0, ru, bytes), "a second fragment from one RU is refused");
  FUZZ_ASSERT(bu.integrity().duplicate == duplicates + 1, "and counted as a duplicate");
  bu.release(0);
  return 0;
}
