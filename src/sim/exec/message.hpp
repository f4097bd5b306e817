#pragma once
// Message: one send or one-sided write between simulated ranks, as the
// credit driver hands it to the World. Of a data message (a fragment, a
// one-sided write, a micro-benchmark's) only the first kCopiedHead bytes
// travel as bytes (its header): the payload is counted, not copied, which is
// what lets 512 ranks of 512 KiB fragments run in one process (results say
// payload checks are off, as under SMPI). A command message travels whole: a
// batch of commands (batch.events > 1) is a list longer than the head.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/messages.hpp"
#include "drivers/api/driver.hpp"

namespace evb::simexec {

constexpr size_t kCopiedHead = 256;
static_assert(sizeof(FragmentHeader) <= kCopiedHead, "a fragment header travels whole");
static_assert(sizeof(Command) <= kCopiedHead, "a command travels whole");

struct Message {
  enum class Kind : uint8_t { send, write };
  Kind kind = Kind::send;
  int src = -1;  // ranks
  int dst = -1;
  uint64_t bytes = 0;   // the message's length (what the network carries)
  Tag tag = 0;          // send
  uint64_t cookie = 0;  // the sender's operation
  // write: where its bytes land (the target's registered memory, in this
  // process), and the immediate the target's completion carries.
  std::byte* target = nullptr;
  bool has_immediate = false;
  uint32_t immediate = 0;
  uint32_t head_bytes = 0;  // min(bytes, kCopiedHead)
  std::array<std::byte, kCopiedHead> head{};
  // A command message's bytes past the head (empty for data messages).
  std::vector<std::byte> rest;
};

}  // namespace evb::simexec
