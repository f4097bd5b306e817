#pragma once
// CommandCounts: the event-building commands one rank's roles sent and
// received, for what building an event costs (results.cost). A message is
// what a driver carried (a batch is one message); a command is one entry
// (a batch of k is k commands). A command to the same rank (loopback) is a
// command but no message. Which role a command belongs to follows from its
// channel and kind: to_evm is sent by a BU and received by the EVM, to_bu
// is sent by the EVM and received by a BU, to_ru is received by an RU and
// sent by a BU (fragment requests, bu_done) or the EVM (the rest). Other
// channels (micro-benchmarks, monitor, control) are not counted.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/messages.hpp"

namespace evb {

enum class CostRole { evm = 0, bu = 1, ru = 2 };
constexpr int kCostRoles = 3;

struct CommandTally {
  uint64_t messages_sent = 0;
  uint64_t commands_sent = 0;
  uint64_t messages_received = 0;
  uint64_t commands_received = 0;
};

class CommandCounts {
 public:
  // A message of `size` bytes at `bytes` (one Command, or a batch header
  // and its list) left for another rank (`message`) or this one.
  void sent(Channel channel, const void* bytes, size_t size, bool message);
  // `commands` commands arrived on `channel` in one message (or loopback).
  void received(Channel channel, uint64_t commands, bool message);
  const CommandTally& of(CostRole r) const { return tally_[static_cast<int>(r)]; }

  // As RankStats::commands: per role (EVM, BU, RU) the four tallies in
  // CommandTally's order; and back (a list of another length is all zeros).
  std::vector<uint64_t> flat() const;
  static CommandCounts from_flat(const std::vector<uint64_t>& v);
  CommandCounts& operator+=(const CommandCounts& o);

 private:
  CommandTally tally_[kCostRoles];
};

}  // namespace evb
