#pragma once
// PUSH. The BU makes a free slot ready for every RU's fragment (receives
// posted on data_path send; nothing on data_path write, its windows were
// advertised once) and offers it to the EVM as a credit. The EVM tells every
// RU, in scheduling order, which BU slot takes the event; RUs send (or
// write) unsolicited. The BU learns the event id from the first fragment.
// Two sound fragments of one slot labelled with different events do not
// say which RU is out of sync: the BU asks the EVM (desync), which knows
// the event it assigned to the slot and names the RU whose label differs;
// the slot is held (not handed to the FUs, not credited) until it answers.
#include <vector>

#include "protocols/event_building/bu_agent.hpp"
#include "protocols/event_building/evm_agent.hpp"

namespace evb::push {

class PushBuAgent final : public BuAgent {
 public:
  using BuAgent::BuAgent;
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  bool done() const override { return stopped_; }

 private:
  void slot_released(uint32_t slot, uint64_t event, uint64_t bytes) override;
  bool before_fragment(uint32_t slot, int ru) override;
  bool requested(const EventSlot&, int) const override { return true; }
  void offer(uint32_t slot, uint64_t event, uint64_t bytes, bool finished);
  void label_disagreement(const OutOfSync& o) override;
  // A label disagreement: the EVM stopped assigning already; an event inside
  // a MEP (the BU knows the RU): the EVM is told.
  void stop_for_out_of_sync(const OutOfSync& o) override;
  bool hold_finished(uint32_t slot) override;
  // The EVM's answer to a label disagreement: which RU is out of sync.
  void desync_answer(PeerId from, const Command& cmd);
  std::vector<uint8_t> asked_evm_;  // per slot: a disagreement awaits the EVM's answer
  std::vector<uint8_t> held_;       // per slot: finished, held until that answer
  bool mep_reported_ = false;       // an event inside a MEP out of sync: the EVM told
};

// The EVM of PUSH: an event id goes to every RU, naming the BU slot.
class PushEvmAgent final : public EvmAgent {
 public:
  using EvmAgent::EvmAgent;

 private:
  void assign_event(PeerId from, int bu, uint32_t slot, uint64_t event) override;
  bool bu_knows_slot_event() const override { return false; }
  std::vector<int> order_;  // the event's RU order (capacity reused)
};

}  // namespace evb::push
