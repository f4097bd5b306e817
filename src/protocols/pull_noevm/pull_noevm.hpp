#pragma once
// PULL without EVM: static assignment. BU b builds events b, b+nBU, b+2nBU,
// ... by itself, pulling fragments as in PULL, and tells every RU when it
// will pull no more (bu_done); an RU stops once every BU has said so. Shows
// whether the EVM limits scale.
#include "protocols/event_building/bu_agent.hpp"

namespace evb::pull_noevm {

class NoEvmBuAgent final : public BuAgent {
 public:
  using BuAgent::BuAgent;
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  bool done() const override { return done_sent_; }

 private:
  void slot_released(uint32_t slot, uint64_t event, uint64_t bytes) override;
  void after_fragment(uint32_t slot) override { request_fragments(slot); }
  bool requested(const EventSlot& e, int ru) const override { return asked(e, ru); }
  void protocol_tick(int64_t now_ns) override;
  // No EVM to tell: this BU starts no more events (the others find the RU
  // out of sync in their own events).
  void stop_for_out_of_sync(const OutOfSync&) override { stopped_ = true; }
  int64_t protocol_timer_ns() const override;
  void next_event(uint32_t slot, int64_t now);

  uint64_t next_event_ = 0;  // own sequence (starts at this BU's index)
  bool started_ = false;
  bool done_sent_ = false;  // bu_done sent to every RU
};

}  // namespace evb::pull_noevm
