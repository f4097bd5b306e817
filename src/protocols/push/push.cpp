#include "protocols/push/push.hpp"

#include "core/clock.hpp"
#include "core/error.hpp"
#include "protocols/event_building/scheduling.hpp"

namespace evb::push {

void PushBuAgent::offer(uint32_t slot, uint64_t event, uint64_t bytes, bool finished) {
  for (int r = 0; r < bu_.nru(); ++r) expect_fragment(slot, r);
  send_credit(slot, event, bytes, finished);
}

void PushBuAgent::start(int64_t) {
  asked_evm_.assign(engine_.config().credits, 0);
  held_.assign(engine_.config().credits, 0);
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
  if (cmd.type == CommandType::mask) {
    masked_by(from, cmd);
    return;
  }
  if (cmd.type == CommandType::desync) {
    desync_answer(from, cmd);
    return;
  }
  throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": unexpected command " +
                            std::to_string(static_cast<int>(cmd.type)) + " from " +
                            engine_.peer_name(from));
}

void PushBuAgent::label_disagreement(const OutOfSync& o) {
  if (asked_evm_[o.slot]) return;  // one question per slot
  asked_evm_[o.slot] = 1;
  report_desync(o, static_cast<uint32_t>(o.expected_from));
}

void PushBuAgent::stop_for_out_of_sync(const OutOfSync& o) {
  if (!o.in_mep || mep_reported_) return;
  mep_reported_ = true;
  report_desync(o, kNoRu);  // the BU knows the RU: no answer to wait for
}

bool PushBuAgent::hold_finished(uint32_t slot) {
  if (!asked_evm_[slot]) return false;
  held_[slot] = 1;
  return true;
}

void PushBuAgent::desync_answer(PeerId from, const Command& cmd) {
  // Only the EVM answers, only a question asked, naming an RU whose sound
  // fragment is in the slot with the label the answer gives.
  const bool asked = cmd.slot < asked_evm_.size() && asked_evm_[cmd.slot];
  const int ru = static_cast<int>(cmd.ru);
  EventSlot* e = asked ? &bu_.slot(cmd.slot) : nullptr;
  const auto* h = e && cmd.ru < e->have.size() && e->have[ru]
                      ? reinterpret_cast<const FragmentHeader*>(bu_.window(cmd.slot, ru))
                      : nullptr;
  if (from != topo_.evm_rank || !h || h->event_id != cmd.value || cmd.event_id == cmd.value)
    throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": an out-of-sync answer from " +
                              engine_.peer_name(from) + " refused");
  asked_evm_[cmd.slot] = 0;
  // The slot builds what the EVM assigned; fragments still to come are
  // checked against that.
  e->event = cmd.event_id;
  e->label_ru = -1;
  ru_out_of_sync(OutOfSync{cmd.slot, ru, cmd.event_id, cmd.value, -1}, bu_.window(cmd.slot, ru),
                 bu_.window(cmd.slot, ru) + bu_.head_bytes());
  if (held_[cmd.slot]) {
    held_[cmd.slot] = 0;
    release_held(cmd.slot, now_ns());
  }
}

void PushEvmAgent::assign_event(PeerId, int bu, uint32_t slot, uint64_t event) {
  const Config& c = engine_.config();
  fill_visit_order(c, bu, topo_.nodes, event, order_);
  for (int r : order_) {
    if (ru_masked(r)) continue;  // on_ru_loss mask: the event is built without it
    engine_.batch_command(topo_.ru_rank[r], Channel::to_ru,
                          Command{.type = CommandType::push_assign,
                                  .event_id = event,
                                  .slot = slot,
                                  .bu = static_cast<uint32_t>(bu),
                                  .ru = static_cast<uint32_t>(r),
                                  .value = released()});
  }
}

}  // namespace evb::push
