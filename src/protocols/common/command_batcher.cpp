#include "protocols/common/command_batcher.hpp"

#include <algorithm>

namespace evb {

CommandBatcher::CommandBatcher(int max_events, int64_t max_wait_ns, size_t peers)
    : max_events_(std::max(1, max_events)), max_wait_ns_(max_wait_ns) {
  if (active()) slot_.assign(peers * 8, -1);
}

bool CommandBatcher::add(PeerId peer, Channel channel, const Command& cmd, int64_t now) {
  int i = index(peer, channel);
  if (i < 0) {
    i = static_cast<int>(open_.size());
    std::vector<Command> cmds;
    if (!spare_.empty()) {
      cmds = std::move(spare_.back());
      spare_.pop_back();
    }
    cmds.reserve(static_cast<size_t>(max_events_));
    open_.push_back(Open{{peer, channel}, now, std::move(cmds)});
    slot_[static_cast<size_t>(peer) * 8 + static_cast<uint32_t>(channel)] = i;
  }
  std::vector<Command>& cmds = open_[static_cast<size_t>(i)].cmds;
  cmds.push_back(cmd);
  return cmds.size() >= static_cast<size_t>(max_events_);
}

void CommandBatcher::take(PeerId peer, Channel channel, std::vector<Command>& out) {
  out.clear();
  const int i = index(peer, channel);
  if (i < 0) return;
  Open& o = open_[static_cast<size_t>(i)];
  out.swap(o.cmds);
  spare_.push_back(std::move(o.cmds));
  spare_.back().clear();
  slot_[static_cast<size_t>(peer) * 8 + static_cast<uint32_t>(channel)] = -1;
  // The last list takes the freed place.
  if (static_cast<size_t>(i) + 1 != open_.size()) {
    o = std::move(open_.back());
    slot_[static_cast<size_t>(o.key.peer) * 8 + static_cast<uint32_t>(o.key.channel)] = i;
  }
  open_.pop_back();
}

void CommandBatcher::lists_on(Channel channel, std::vector<Key>& out) const {
  out.clear();
  for (const Open& o : open_)
    if (o.key.channel == channel) out.push_back(o.key);
}

void CommandBatcher::lists_due(int64_t now, std::vector<Key>& out) const {
  out.clear();
  for (const Open& o : open_)
    if (o.since_ns + max_wait_ns_ <= now) out.push_back(o.key);
}

int64_t CommandBatcher::next_due_ns() const {
  int64_t t = -1;
  for (const Open& o : open_)
    t = t < 0 ? o.since_ns + max_wait_ns_ : std::min(t, o.since_ns + max_wait_ns_);
  return t;
}

}  // namespace evb
