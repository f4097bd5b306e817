// The credits of MicroAgent (microbench_agent.hpp): the receiver returns
// freed slots several to a credit (credit_batch_of, docs/MICROBENCH.md
// "One credit for several slots"), the sender takes each credit and refuses one that would give
// it more than the credits in circulation.
#include <string>

#include "core/error.hpp"
#include "protocols/microbench/microbench_agent.hpp"

namespace evb::micro {

void MicroAgent::credit(size_t s, uint32_t slot) {
  hold_credit(s, slot);
  if (sources_[s].pending >= batch_) flush_credits(s);
}

// Write path: the held slots are a run, pending_first and the slots after
// it (wrapping within the source's slots), which is the order slots are
// freed in when writes land in order; a slot out of that order sends the
// run held so far first. The send path names no slot.
void MicroAgent::hold_credit(size_t s, uint32_t slot) {
  Source& src = sources_[s];
  if (src.pending > 0 && windows_ && slot != (src.pending_first + src.pending) % slots_)
    flush_credits(s);
  if (src.pending == 0) src.pending_first = slot;
  ++src.pending;
}

// One credit for the held slots: `count` of them from arena slot `value`
// (s * slots + the first).
void MicroAgent::flush_credits(size_t s) {
  Source& src = sources_[s];
  if (src.pending == 0) return;
  Command cmd = bench_command(BenchOp::credit);
  cmd.ru = static_cast<uint32_t>(src.ru);
  cmd.bu = static_cast<uint32_t>(stats_.bu);
  cmd.value = s * slots_ + src.pending_first;
  cmd.count = src.pending;
  src.credits_sent += src.pending;
  src.pending = 0;
  engine_.send_command(src.rank, Channel::bench, cmd);
}

// A credit from target `t`'s BU: `count` exchanges, none beyond the credits
// in circulation (a peer granting more than the window is refused, as one
// naming a slot outside the arena it advertised).
void MicroAgent::take_credit(size_t t, PeerId from, const Command& cmd) {
  Target& target = targets_[t];
  if (cmd.count == 0 || target.credits + cmd.count > tickets_)
    throw PeerError(from, "micro-benchmark: a credit from " + engine_.peer_name(from) + " grants " +
                              std::to_string(cmd.count) + " exchange(s) while " +
                              std::to_string(target.credits) + " are unused, beyond the " +
                              std::to_string(tickets_) + " credits of a source");
  if (windows_) {
    // Every slot must lie inside the window the BU advertised.
    const uint64_t slots = windows_->at(target.bu).size / slot_bytes();
    if (cmd.value >= slots || (cmd.value / slots_ + 1) * slots_ > slots)
      throw PeerError(from, "micro-benchmark: a credit from " + engine_.peer_name(from) +
                                " names arena slot " + std::to_string(cmd.value) +
                                ", its window holds " + std::to_string(slots));
    const uint64_t base = cmd.value / slots_ * slots_;
    for (uint32_t i = 0; i < cmd.count; ++i)
      target.slots.push_back(static_cast<uint32_t>(base + (cmd.value % slots_ + i) % slots_));
  }
  target.credits += cmd.count;
  target.credits_received += cmd.count;
}

}  // namespace evb::micro
