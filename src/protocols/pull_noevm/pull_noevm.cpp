#include "protocols/pull_noevm/pull_noevm.hpp"

#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/ring_geometry.hpp"

namespace evb::pull_noevm {

void NoEvmBuAgent::next_event(uint32_t slot, int64_t now) {
  const Config& c = engine_.config();
  if (!started_) {
    next_event_ = static_cast<uint64_t>(bu_.index());
    started_ = true;
  }
  if (stopped_) return;
  if (c.events && next_event_ >= meps_to_build(c)) {  // ids name MEPs (fragment.events)
    stopped_ = true;
    return;
  }
  const uint64_t e = next_event_;
  next_event_ += static_cast<uint64_t>(topo_.nodes);
  begin_event(slot, e, now);
  request_fragments(slot);
}

void NoEvmBuAgent::start(int64_t now) {
  for (uint32_t s = 0; s < static_cast<uint32_t>(engine_.config().credits); ++s) next_event(s, now);
}

void NoEvmBuAgent::slot_released(uint32_t slot, uint64_t, uint64_t) {
  next_event(slot, now_ns());
}

void NoEvmBuAgent::on_command(PeerId from, const Command& cmd) {
  throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": unexpected command " +
                            std::to_string(static_cast<int>(cmd.type)) + " from " +
                            engine_.peer_name(from) + " (pull-noevm has no EVM)");
}

void NoEvmBuAgent::protocol_tick(int64_t now) {
  if (!stopped_ && end_ns_ && now - engine_.t0_ns() >= end_ns_) stopped_ = true;
  if (stopped_ && busy_slots_ == 0 && !done_sent_) {
    done_sent_ = true;
    for (int r = 0; r < topo_.nodes; ++r)
      engine_.send_command(
          topo_.ru_rank[r], Channel::to_ru,
          Command{.type = CommandType::bu_done, .bu = static_cast<uint32_t>(bu_.index())});
  }
}

int64_t NoEvmBuAgent::protocol_timer_ns() const {
  return end_ns_ && !stopped_ ? engine_.t0_ns() + end_ns_ : -1;
}

}  // namespace evb::pull_noevm
