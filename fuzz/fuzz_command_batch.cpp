// libFuzzer target: the command batch decoder (core/command_batch.hpp
// decode_batch, as the Engine calls it on every received message whose
// header says batch). The input is one received message: its first byte,
// taken off, gives the receiver's batch.events (1..kMaxBatchEvents); the
// rest is the message.
//
// Asserts: the decoder never throws; it refuses with a reason or accepts;
// an accepted batch has the header's count of commands (1..batch.events),
// fits in the bytes received, is all of one batchable kind with the magic
// on every entry, each entry exactly the bytes it came from, and encodes
// back to the bytes it was read from; a receiver with a smaller
// batch.events than the count refuses the same message; and a batch
// encoded from the accepted list is accepted again with the same list.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/command_batch.hpp"
#include "core/messages.hpp"
#include "fuzz_assert.hpp"

namespace {

using namespace evb;

std::string decode(const Command& head, const uint8_t* bytes, size_t size, int max_events,
                   std::vector<Command>& out) {
  try {
    return decode_batch(head, bytes, size, max_events, out);
  } catch (...) {
    FUZZ_ASSERT(false, "the batch decoder throws nothing");
  }
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int max_events = 1 + data[0] % kMaxBatchEvents;
  const uint8_t* msg = data + 1;
  const size_t len = size - 1;
  Command head;
  if (!decode_command(msg, len, &head) || head.type != CommandType::batch) return 0;
  std::vector<Command> out;
  const std::string problem = decode(head, msg, len, max_events, out);
  if (!problem.empty()) return 0;

  const size_t n = out.size();
  FUZZ_ASSERT(n == head.count && n >= 1 && n <= static_cast<size_t>(max_events),
              "an accepted batch holds its header's count, within batch.events");
  FUZZ_ASSERT(len >= batch_message_size(static_cast<int>(n)), "an accepted batch fits the bytes");
  for (size_t i = 0; i < n; ++i) {
    FUZZ_ASSERT(
        out[i].magic == kCommandMagic && batchable(out[i].type) && out[i].type == out[0].type,
        "every entry is one batchable kind, magic and all");
    FUZZ_ASSERT(std::memcmp(&out[i], msg + sizeof(Command) * (i + 1), sizeof(Command)) == 0,
                "an entry is exactly the bytes it came from");
  }
  std::vector<unsigned char> again(batch_message_size(static_cast<int>(n)));
  FUZZ_ASSERT(encode_batch(out, again.data()) == again.size(), "encode writes the whole batch");
  FUZZ_ASSERT(std::memcmp(again.data(), msg, again.size()) == 0,
              "an accepted batch encodes back to its bytes");
  std::vector<Command> back;
  FUZZ_ASSERT(decode(head, again.data(), again.size(), max_events, back).empty() &&
                  back.size() == n &&
                  std::memcmp(back.data(), out.data(), n * sizeof(Command)) == 0,
              "a re-encoded batch reads back the same list");
  if (n > 1) {
    std::vector<Command> fewer;
    FUZZ_ASSERT(!decode(head, msg, len, static_cast<int>(n) - 1, fewer).empty(),
                "a receiver with a smaller batch.events refuses it");
  }
  return 0;
}
