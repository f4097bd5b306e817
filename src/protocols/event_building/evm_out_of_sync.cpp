// EvmAgent::on_desync: a BU found a fragment out of sync. The EVM stops
// assigning (the run ends with an integrity error once the events in flight
// are reported); in PUSH it also says which RU is out of sync, from the
// event it assigned to the BU's slot, unless the BU names the RU itself (an
// event inside a MEP, fragment.events > 1: `count` kNoRu, the two events
// event numbers). Every field is checked before use.
#include <cstdio>

#include "core/error.hpp"
#include "protocols/event_building/evm_agent.hpp"

namespace evb {

void EvmAgent::on_desync(PeerId from, const Command& cmd) {
  auto refuse = [&](const std::string& what) {
    throw PeerError(
        from, "EVM: an out-of-sync report from " + engine_.peer_name(from) + " refused: " + what);
  };
  const int credits = engine_.config().credits;
  const uint32_t nodes = static_cast<uint32_t>(topo_.nodes);
  if (cmd.bu >= nodes || topo_.bu_rank[cmd.bu] != from) refuse("it names another BU");
  if (cmd.slot >= static_cast<uint32_t>(credits)) refuse("no valid slot");
  if (cmd.ru >= nodes) refuse("no valid RU");
  // PULL: the BU knows the slot's event and named the RU; PUSH: it names two.
  const bool pull = bu_knows_slot_event();
  if (pull && cmd.count != kNoRu) refuse("a second RU where the BU knows the event");
  // PUSH: a BU names the RU itself only for an event inside a MEP.
  const bool named = pull || (cmd.count == kNoRu && engine_.config().fragment.events > 1);
  if (!named && (cmd.count >= nodes || cmd.count == cmd.ru)) refuse("no second RU");
  if (cmd.event_id == cmd.value) refuse("the two events are the same");
  if (exclude_ && evm_.excluded(static_cast<int>(cmd.bu))) {
    ++stats_.late_discarded;  // from a BU taken out of the run
    return;
  }
  // PUSH: the BU holds the slot until the answer, so it still holds its event.
  const size_t k = static_cast<size_t>(cmd.bu) * credits + cmd.slot;
  if (!named && !held_[k]) refuse("the slot holds no event");
  // The RU out of sync: the one named (PULL, a MEP's event), or the one
  // whose label is not the event assigned to the slot (PUSH).
  const uint64_t assigned = named ? 0 : slot_event_[k];
  const uint32_t culprit = named || cmd.event_id != assigned ? cmd.ru : cmd.count;
  if (mask_) {
    // on_ru_loss mask: the RU is masked as if lost, every BU told; the run
    // goes on (the out-of-sync fragments stay counted: an integrity error).
    if (!evm_.masked(static_cast<int>(culprit))) {
      lose_ru(static_cast<int>(culprit), topo_.ru_rank[culprit], now_ns(), "out of sync");
      const Command m{.type = CommandType::mask, .ru = culprit};
      for (int b = 0; b < topo_.nodes; ++b)
        if (!evm_.excluded(b)) engine_.send_command(topo_.bu_rank[b], Channel::to_bu, m);
    }
  } else {
    if (!evm_.stopping())
      std::fprintf(stderr,
                   "evbench: EVM: an RU is out of sync (reported by BU %u): assignment stops\n",
                   cmd.bu);
    evm_.stop_assigning();
  }
  if (!named) {
    Command answer{
        .type = CommandType::desync, .event_id = assigned, .slot = cmd.slot, .bu = cmd.bu};
    if (cmd.event_id != assigned) {
      answer.ru = cmd.ru;
      answer.value = cmd.event_id;
    } else {
      answer.ru = cmd.count;
      answer.value = cmd.value;
    }
    engine_.send_command(from, Channel::to_bu, answer);
  }
  maybe_stop();
}

}  // namespace evb
