#include "protocols/evm_rate/evm_rate.hpp"

#include "core/clock.hpp"
#include "core/error.hpp"

namespace evb::evm_rate {

void CreditBackBuAgent::start(int64_t) {
  for (uint32_t s = 0; s < static_cast<uint32_t>(engine_.config().credits); ++s)
    send_credit(s, 0, 0, false);
}

void CreditBackBuAgent::slot_released(uint32_t slot, uint64_t event, uint64_t bytes) {
  send_credit(slot, event, bytes, true);  // never: no slot is ever busy
}

void CreditBackBuAgent::on_command(PeerId from, const Command& cmd) {
  switch (cmd.type) {
    case CommandType::assign: {
      if (from != topo_.evm_rank || cmd.slot >= static_cast<uint32_t>(engine_.config().credits))
        throw PeerError(from, "BU " + std::to_string(stats_.bu) + ": assignment from " +
                                  engine_.peer_name(from) + " for a slot it holds no credit of");
      if (excluded_) break;
      const int64_t t = now_ns() - engine_.t0_ns();
      ++stats_.events_started;
      ++stats_.events_built;
      const bool in_window =
          stats_.book(t, 0, 0, 1, warmup_ns_, end_ns_, s_to_ns(engine_.config().report_interval_s));
      engine_.batch_command(topo_.evm_rank, Channel::to_evm,
                            Command{.type = CommandType::credit,
                                    .event_id = cmd.event_id,
                                    .slot = cmd.slot,
                                    .bu = static_cast<uint32_t>(stats_.bu),
                                    .count = in_window ? 1u : 0u,
                                    .value = 1});
      break;
    }
    case CommandType::exclude:
      excluded_by(from, cmd);
      break;
    case CommandType::stop:
      if (from != topo_.evm_rank)
        throw PeerError(from, "BU " + std::to_string(stats_.bu) + ": a stop from " +
                                  engine_.peer_name(from) + " refused");
      stopped_ = true;
      break;
    default:
      throw PeerError(from, "BU " + std::to_string(stats_.bu) + ": unexpected command " +
                                std::to_string(static_cast<int>(cmd.type)) + " from " +
                                engine_.peer_name(from));
  }
}

}  // namespace evb::evm_rate
