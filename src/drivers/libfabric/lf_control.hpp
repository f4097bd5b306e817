#pragma once
// The driver's own messages (hello, write notification, goodbye, keepalive)
// and the registered slots they are sent from and received into.
//
// Control messages travel on the internal tag (lf_tags.hpp), 32 bytes,
// little-endian:
//   0  u32 magic kControlMagic   4  u16 version   6  u16 kind (CtlKind)
//   8  u32 sender rank          12  u32 number of ranks
//   16 u64 a                    24  u64 b
// hello: a = run id (hash of every rank's address); notify (emulated write
// immediate): a = bytes written, b = the immediate; bye: nothing; ping / pong
// (keepalive): a = sequence number.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace evb::libfabric {

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
constexpr size_t kSlotBytes = 64;

void encode(const CtlMessage& m, std::byte* out);  // writes kControlBytes
// Null when the bytes are not a control message of this version.
std::optional<CtlMessage> decode(std::span<const std::byte> bytes);

// FNV-1a over the number of ranks and every address: the same on every rank
// of one run, different (with overwhelming probability) across runs.
uint64_t run_id(const std::vector<std::string>& addresses);

// One slot of registered memory for a control message.
struct CtlSlot {
  std::byte* data = nullptr;
  void* desc = nullptr;  // fi_mr_desc of the chunk
};

// A growing pool of kSlotBytes slots, registered in chunks through
// `registrar` (which returns an owner plus the chunk's descriptor).
class CtlSlots {
 public:
  struct Chunk {
    std::unique_ptr<std::byte[]> memory;
    std::shared_ptr<void> registration;  // keeps the chunk registered
  };
  using Registrar = std::function<std::shared_ptr<void>(void* base, size_t size, void** desc)>;

  CtlSlots(Registrar registrar, size_t slots_per_chunk);
  ~CtlSlots();
  CtlSlots(const CtlSlots&) = delete;
  CtlSlots& operator=(const CtlSlots&) = delete;

  CtlSlot* acquire();  // throws evb::Error when registration fails
  void release(CtlSlot* slot) { free_.push_back(slot); }
  size_t in_use() const { return slots_.size() - free_.size(); }
  // Deregisters every chunk (the slots must no longer be in use by libfabric).
  void clear() noexcept;

 private:
  Registrar registrar_;
  size_t per_chunk_;
  std::vector<Chunk> chunks_;
  std::vector<std::unique_ptr<CtlSlot>> slots_;
  std::vector<CtlSlot*> free_;
};

}  // namespace evb::libfabric
