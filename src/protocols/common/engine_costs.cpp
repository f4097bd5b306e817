// The Engine's cost books: every command handed to an agent or sent is
// counted per role (CommandCounts), and the timed agent's handlers (the
// EVM's) are timed in thread CPU time (CpuMeter): one stretch per received
// message, whatever its commands, and one for its tick in a turn that
// handed it a message (the tick sends what its commands answered). Ticks
// of turns that handed it nothing (idle polling, timers) are not timed.
// The stretches read the monotonic clock; the thread CPU clock is read at
// the ends of the meter's windows, which the loop closes before it gives
// the CPU away (Engine::idle, a stall) and at its end.
#include "protocols/common/engine.hpp"

namespace evb {

void Engine::time_agent(uint8_t agent) {
  timed_ = agent;
  meter_.emplace();
}

void Engine::hand_over(Channel channel, PeerId from, std::span<const Command> cmds, bool message) {
  counts_.received(channel, cmds.size(), message);
  const uint8_t id = listeners_[static_cast<int>(channel)];
  Agent* a = agents_.at(id);
  const bool timed = id == timed_;
  if (timed) meter_->begin();
  for (const Command& one : cmds) a->on_command(from, one);
  if (!timed) return;
  meter_->end();
  timed_due_ = true;
}

void Engine::tick_agents(int64_t now) {
  for (size_t i = 1; i < agents_.size(); ++i) {
    if (i != timed_ || !timed_due_) {
      agents_[i]->on_tick(now);
      continue;
    }
    meter_->begin();
    agents_[i]->on_tick(now);
    meter_->end();
    timed_due_ = false;
  }
}

}  // namespace evb
