#pragma once
// Command batches (batch.events > 1): credits, assignments and fragment
// requests travel several to a message. On the wire a batch is a header
// Command {type batch, count n, every other field 0} followed by n whole
// Commands, each exactly as it would travel alone (magic and all), the
// message padded to `command_size` like any command. All n are of one kind,
// a kind that may be batched; the receiver hands them to their agent one by
// one, in order, so each is checked like a single command.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/messages.hpp"

namespace evb {

// The most commands one batch may carry (the upper bound of batch.events).
constexpr int kMaxBatchEvents = 256;

// Bytes of a batch of `n` commands: the header and the list.
constexpr size_t batch_message_size(int n) {
  return sizeof(Command) * (static_cast<size_t>(n) + 1);
}

// Whether commands of type `t` may travel in a batch.
constexpr bool batchable(CommandType t) {
  return t == CommandType::credit || t == CommandType::assign || t == CommandType::pull_request ||
         t == CommandType::push_assign;
}

// Writes the batch of `cmds` (1..kMaxBatchEvents of one batchable kind) at
// `out`, which holds batch_message_size(cmds.size()) bytes; returns the bytes
// written.
size_t encode_batch(std::span<const Command> cmds, void* out);

// Reads the list behind `head` (already decoded from the message's first
// bytes: type batch) out of the `size` bytes received at `bytes` into `out`.
// At most `max_events` commands are accepted. Returns "" when the batch is
// sound, else what is wrong with it (for an error that names the peer; it
// never says what should have been sent).
std::string decode_batch(const Command& head, const void* bytes, size_t size, int max_events,
                         std::vector<Command>& out);

}  // namespace evb
