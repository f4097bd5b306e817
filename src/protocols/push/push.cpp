#include "protocols/push/push.hpp"

#include "core/clock.hpp"
#include "core/error.hpp"
#include "protocols/common/scheduling.hpp"

namespace evb::push {

void PushBuAgent::offer(uint32_t slot, uint64_t event, uint64_t bytes, bool finished) {
  for (int r = 0; r < bu_.nru(); ++r) expect_fragment(slot, r);
  send_credit(slot, event, bytes, finished);
}

void PushBuAgent::start(int64_t) {
  for (uint32_t s = 0; s < static_cast<uint32_t>(engine_.config().credits); ++s)
    offer(s, 0, 0, false);
}

void PushBuAgent::slot_released(uint32_t slot, uint64_t event, uint64_t bytes) {
  offer(slot, event, bytes, true);
}

bool PushBuAgent::before_fragment(uint32_t slot, int /*ru*/) {
  // The event id comes from the first fragment whose header passes its
  // checks (BuilderUnit::accept), never from an unchecked header.
  if (bu_.slot(slot).state == SlotState::free)
    begin_event(slot, BuilderUnit::kEventFromHeader, now_ns());
  return true;
}

void PushBuAgent::on_command(PeerId from, const Command& cmd) {
  if (cmd.type == CommandType::stop && from == topo_.evm_rank) {
    stopped_ = true;
    return;
  }
  if (cmd.type == CommandType::exclude) {
    excluded_by(from, cmd);
    return;
  }
  throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": unexpected command " +
                            std::to_string(static_cast<int>(cmd.type)) + " from " +
                            engine_.peer_name(from));
}

void PushEvmAgent::assign_event(PeerId, int bu, uint32_t slot, uint64_t event) {
  const Config& c = engine_.config();
  fill_visit_order(c, bu, topo_.nodes, event, order_);
  for (int r : order_) {
    if (ru_masked(r)) continue;  // on_ru_loss mask: the event is built without it
    engine_.send_command(topo_.ru_rank[r], Channel::to_ru,
                         Command{.type = CommandType::push_assign,
                                 .event_id = event,
                                 .slot = slot,
                                 .bu = static_cast<uint32_t>(bu),
                                 .ru = static_cast<uint32_t>(r),
                                 .value = released()});
  }
}

}  // namespace evb::push
