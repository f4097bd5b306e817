#include "protocols/common/command_counts.hpp"

#include <cstring>

#include "core/command_batch.hpp"

namespace evb {
namespace {

// The role that receives on `channel`, -1 for a channel not counted.
int receiver(Channel channel) {
  switch (channel) {
    case Channel::to_evm:
      return static_cast<int>(CostRole::evm);
    case Channel::to_bu:
      return static_cast<int>(CostRole::bu);
    case Channel::to_ru:
      return static_cast<int>(CostRole::ru);
    default:
      return -1;
  }
}

int sender(Channel channel, CommandType type) {
  switch (channel) {
    case Channel::to_evm:
      return static_cast<int>(CostRole::bu);
    case Channel::to_bu:
      return static_cast<int>(CostRole::evm);
    case Channel::to_ru:
      return static_cast<int>(type == CommandType::pull_request || type == CommandType::bu_done
                                  ? CostRole::bu
                                  : CostRole::evm);
    default:
      return -1;
  }
}

}  // namespace

void CommandCounts::sent(Channel channel, const void* bytes, size_t size, bool message) {
  if (receiver(channel) < 0 || size < sizeof(Command)) return;
  Command head;
  std::memcpy(&head, bytes, sizeof head);
  uint64_t commands = 1;
  if (head.type == CommandType::batch && size >= batch_message_size(1)) {
    commands = head.count;
    std::memcpy(&head, static_cast<const unsigned char*>(bytes) + sizeof(Command), sizeof head);
  }
  CommandTally& t = tally_[sender(channel, head.type)];
  t.messages_sent += message ? 1 : 0;
  t.commands_sent += commands;
}

void CommandCounts::received(Channel channel, uint64_t commands, bool message) {
  const int r = receiver(channel);
  if (r < 0) return;
  tally_[r].messages_received += message ? 1 : 0;
  tally_[r].commands_received += commands;
}

std::vector<uint64_t> CommandCounts::flat() const {
  std::vector<uint64_t> v;
  for (const CommandTally& t : tally_)
    v.insert(v.end(), {t.messages_sent, t.commands_sent, t.messages_received, t.commands_received});
  return v;
}

CommandCounts CommandCounts::from_flat(const std::vector<uint64_t>& v) {
  CommandCounts c;
  if (v.size() != 4 * kCostRoles) return c;
  for (int r = 0; r < kCostRoles; ++r)
    c.tally_[r] = {v[4 * r], v[4 * r + 1], v[4 * r + 2], v[4 * r + 3]};
  return c;
}

CommandCounts& CommandCounts::operator+=(const CommandCounts& o) {
  for (int r = 0; r < kCostRoles; ++r) {
    tally_[r].messages_sent += o.tally_[r].messages_sent;
    tally_[r].commands_sent += o.tally_[r].commands_sent;
    tally_[r].messages_received += o.tally_[r].messages_received;
    tally_[r].commands_received += o.tally_[r].commands_received;
  }
  return *this;
}

}  // namespace evb
