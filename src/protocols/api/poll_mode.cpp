#include "protocols/api/poll_mode.hpp"

#include <algorithm>

namespace evb {

PollMode effective_poll_mode(PollMode configured, int local_processes, int cores, bool can_block) {
  if (configured != PollMode::automatic) {
    if (configured == PollMode::block && !can_block) return PollMode::yield;
    return configured;
  }
  if (local_processes <= std::max(1, cores)) return PollMode::busy;
  return can_block ? PollMode::block : PollMode::yield;
}

}  // namespace evb
