#pragma once
// evm-rate, the EVM saturation benchmark (issue 40 item 4): PULL's own EVM
// (pull::PullEvmAgent, the real assignment path, batches and all) serves
// BUs that build nothing. A BU answers each assignment at once with the
// credit that reports its event finished (bytes 0, counted as built in its
// window like any event), and asks no RU for anything, so the RUs send
// nothing and only the EVM's assignment path is loaded: results.cost gives
// its CPU time and commands per event, the table its events per second.
#include "protocols/event_building/bu_agent.hpp"

namespace evb::evm_rate {

class CreditBackBuAgent final : public BuAgent {
 public:
  using BuAgent::BuAgent;
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  bool done() const override { return excluded_ || stopped_; }

 private:
  void slot_released(uint32_t slot, uint64_t event, uint64_t bytes) override;
  bool requested(const EventSlot&, int) const override { return false; }
  void stop_for_out_of_sync(const OutOfSync&) override {}
  // This turn's credits leave together (one message per turn at most).
  void protocol_tick(int64_t) override { engine_.flush_commands(Channel::to_evm); }
};

}  // namespace evb::evm_rate
