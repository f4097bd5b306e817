#include "core/command_batch.hpp"

#include <cstring>

namespace evb {

size_t encode_batch(std::span<const Command> cmds, void* out) {
  const Command head{.type = CommandType::batch, .count = static_cast<uint32_t>(cmds.size())};
  auto* p = static_cast<unsigned char*>(out);
  std::memcpy(p, &head, sizeof head);
  std::memcpy(p + sizeof head, cmds.data(), cmds.size_bytes());
  return batch_message_size(static_cast<int>(cmds.size()));
}

std::string decode_batch(const Command& head, const void* bytes, size_t size, int max_events,
                         std::vector<Command>& out) {
  out.clear();
  if (head.type != CommandType::batch) return "not a batch";
  Command bare{.type = CommandType::batch, .count = head.count};
  if (std::memcmp(&bare, &head, sizeof head) != 0) return "its header carries stray fields";
  if (head.count == 0) return "it announces an empty list";
  const std::string announced = "it announces " + std::to_string(head.count) + " commands";
  if (max_events < 2 || head.count > static_cast<uint32_t>(max_events))
    return announced + ", more than a batch may hold in this run";
  if (size < batch_message_size(static_cast<int>(head.count)))
    return announced + " in a " + std::to_string(size) + " B message";
  const auto* p = static_cast<const unsigned char*>(bytes) + sizeof(Command);
  for (uint32_t i = 0; i < head.count; ++i) {
    Command c;
    std::memcpy(&c, p + i * sizeof(Command), sizeof c);
    const std::string which = "command " + std::to_string(i + 1) + " of its list";
    if (c.magic != kCommandMagic) return which + " lacks the magic";
    if (!batchable(c.type))
      return which + " is of type " + std::to_string(static_cast<int>(c.type)) +
             ", which does not travel in batches";
    if (i > 0 && c.type != out.front().type) return which + " is of another type than the first";
    out.push_back(c);
  }
  return "";
}

}  // namespace evb
