#pragma once
// CommandBatcher: the commands one rank holds back to send several in one
// message (batch.events > 1, core/command_batch.hpp). It keeps one open
// list per peer and channel, in the order the commands were given, and the
// time its first command was added. The Engine sends a list when it is
// full, when a command that is not batched goes to the same peer and
// channel (order on a channel is kept), when an agent flushes its channel,
// or when the list has waited `batch.max_wait`. It sends nothing itself.
#include <cstdint>
#include <vector>

#include "core/messages.hpp"
#include "drivers/api/driver.hpp"

namespace evb {

class CommandBatcher {
 public:
  // `max_events`: batch.events (1: nothing is ever held back); `peers`: ranks.
  CommandBatcher(int max_events, int64_t max_wait_ns, size_t peers);

  bool active() const { return max_events_ > 1; }
  // Adds `cmd` to the list of (peer, channel), opened at `now` if empty.
  // True when the list is full now (the caller sends it).
  bool add(PeerId peer, Channel channel, const Command& cmd, int64_t now);
  bool holds(PeerId peer, Channel channel) const { return active() && index(peer, channel) >= 0; }
  bool empty() const { return open_.empty(); }
  // Moves the list of (peer, channel) into `out` (cleared first) and closes it.
  void take(PeerId peer, Channel channel, std::vector<Command>& out);
  // Open lists, as (peer, channel) in `out` (cleared first): those on
  // `channel`, or those that have waited max_wait at `now`.
  struct Key {
    PeerId peer;
    Channel channel;
  };
  void lists_on(Channel channel, std::vector<Key>& out) const;
  void lists_due(int64_t now, std::vector<Key>& out) const;
  // When the oldest open list is due (-1: none open).
  int64_t next_due_ns() const;

 private:
  struct Open {
    Key key;
    int64_t since_ns;
    std::vector<Command> cmds;
  };
  int index(PeerId peer, Channel channel) const {
    return slot_[static_cast<size_t>(peer) * 8 + static_cast<uint32_t>(channel)];
  }

  int max_events_;
  int64_t max_wait_ns_;
  std::vector<int> slot_;  // by peer * 8 + channel: index into open_, -1 none
  std::vector<Open> open_;
  std::vector<std::vector<Command>> spare_;  // emptied lists (capacity kept)
};

}  // namespace evb
