#pragma once
// PULL, the DAQPIPE paper's main mode. The BU offers each free slot to the
// EVM as a credit; the EVM assigns an event id to the slot; the BU then asks
// the RUs for their fragments in scheduling order, `parallel` requests in
// flight per slot (on data_path send, each with its receive posted first;
// on data_path write, the request's slot names the window the RU writes to).
#include <memory>

#include "protocols/event_building/bu_agent.hpp"
#include "protocols/event_building/evm_agent.hpp"

namespace evb::pull {

class PullBuAgent final : public BuAgent {
 public:
  using BuAgent::BuAgent;
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  bool done() const override { return excluded_ || (stopped_ && busy_slots_ == 0); }

 private:
  void slot_released(uint32_t slot, uint64_t event, uint64_t bytes) override;
  void after_fragment(uint32_t slot) override { request_fragments(slot); }
  bool requested(const EventSlot& e, int ru) const override { return asked(e, ru); }
  void stop_for_out_of_sync(const OutOfSync& o) override;
  bool desync_reported_ = false;  // the EVM was asked to stop assigning
};

// The EVM of PULL: an event id goes to the BU that sent the credit.
class PullEvmAgent final : public EvmAgent {
 public:
  using EvmAgent::EvmAgent;

 private:
  void assign_event(PeerId from, int bu, uint32_t slot, uint64_t event) override;
};

}  // namespace evb::pull
