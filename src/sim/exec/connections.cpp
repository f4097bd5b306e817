// Numbering each host's ranks, and a message's stream, for its lane.
#include "sim/exec/connections.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "core/messages.hpp"

namespace evb::simexec {

Connections::Connections(const std::vector<int>& rank_host) : number_(rank_host.size(), 0) {
  std::vector<int> held;  // by host: ranks numbered so far
  for (size_t r = 0; r < rank_host.size(); ++r) {
    const int h = rank_host[r];
    if (h < 0) throw Error("sim: rank " + std::to_string(r) + " has no host");
    if (static_cast<size_t>(h) >= held.size()) held.resize(static_cast<size_t>(h) + 1, 0);
    number_[r] = held[h]++;
    per_host_ = std::max(per_host_, held[h]);
  }
}

int Connections::stream(const Message& m) {
  if (m.kind == Message::Kind::write) return kData;
  const uint32_t channel = tag_channel(m.tag);
  return channel == static_cast<uint32_t>(Channel::data) ||
                 channel == static_cast<uint32_t>(Channel::bench)
             ? kData
             : kCommands;
}

}  // namespace evb::simexec
