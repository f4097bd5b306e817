#include "protocols/pull/pull.hpp"

#include "core/clock.hpp"
#include "core/error.hpp"

namespace evb::pull {

void PullBuAgent::start(int64_t) {
  for (uint32_t s = 0; s < static_cast<uint32_t>(engine_.config().credits); ++s)
    send_credit(s, 0, 0, false);
}

void PullBuAgent::slot_released(uint32_t slot, uint64_t event, uint64_t bytes) {
  send_credit(slot, event, bytes, true);
}

void PullBuAgent::stop_for_out_of_sync(const OutOfSync& o) {
  // The EVM stops assigning; the events in flight finish (not built).
  if (desync_reported_) return;
  desync_reported_ = true;
  report_desync(o, kNoRu);
}

void PullBuAgent::on_command(PeerId from, const Command& cmd) {
  switch (cmd.type) {
    case CommandType::assign:
      if (from != topo_.evm_rank || cmd.slot >= bu_.slots().size() ||
          bu_.slot(cmd.slot).state != SlotState::free)
        throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": assignment from " +
                                  engine_.peer_name(from) + " for a slot it holds no credit of");
      if (excluded_) break;  // sent before the EVM excluded this BU
      released_at_assign_[cmd.slot] = cmd.value;
      begin_event(cmd.slot, cmd.event_id, now_ns());
      request_fragments(cmd.slot);
      check_incomplete(cmd.slot);
      break;
    case CommandType::exclude:
      excluded_by(from, cmd);
      break;
    case CommandType::mask:
      masked_by(from, cmd);
      break;
    case CommandType::stop:
      if (from != topo_.evm_rank)
        throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": a stop from " +
                                  engine_.peer_name(from) + " refused");
      stopped_ = true;
      break;
    default:
      throw PeerError(from, "BU " + std::to_string(bu_.index()) + ": unexpected command " +
                                std::to_string(static_cast<int>(cmd.type)) + " from " +
                                engine_.peer_name(from));
  }
}

void PullEvmAgent::assign_event(PeerId from, int, uint32_t slot, uint64_t event) {
  const auto bu = static_cast<uint32_t>(topo_.ranks.at(from).bu);
  engine_.batch_command(from, Channel::to_bu,
                        Command{.type = CommandType::assign,
                                .event_id = event,
                                .slot = slot,
                                .bu = bu,
                                .value = released()});
}

}  // namespace evb::pull
