#pragma once
// The drivers' own messages (hello, write notification, goodbye, keepalive),
// shared by the drivers that need them (libfabric, ucx).
//
// A control message is 32 bytes, little-endian:
//   0  u32 magic kControlMagic   4  u16 version   6  u16 kind (CtlKind)
//   8  u32 sender rank          12  u32 number of ranks
//   16 u64 a                    24  u64 b
// hello: a = run id (hash of every rank's address); notify (emulated write
// immediate): a = bytes written, b = the immediate; bye: nothing; ping / pong
// (keepalive): a = sequence number. decode() accepts nothing else: a message
// of another size, magic, version or kind is refused whole.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace evb {

enum class CtlKind : uint16_t { hello = 1, notify = 2, bye = 3, ping = 4, pong = 5 };

struct CtlMessage {
  CtlKind kind = CtlKind::hello;
  uint32_t rank = 0;
  uint32_t size = 0;
  uint64_t a = 0;
  uint64_t b = 0;
};

constexpr uint32_t kControlMagic = 0x4C425645u;  // "EVBL"
constexpr uint16_t kControlVersion = 1;
constexpr size_t kControlBytes = 32;

void encode(const CtlMessage& m, std::byte* out);  // writes kControlBytes
// Null when the bytes are not a control message of this version.
std::optional<CtlMessage> decode(std::span<const std::byte> bytes);

// FNV-1a over the number of ranks and every address: the same on every rank
// of one run, different (with overwhelming probability) across runs.
uint64_t run_id(const std::vector<std::string>& addresses);

}  // namespace evb
