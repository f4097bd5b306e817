#pragma once
// RuAgent: the RU side of every event builder. A pull request (PULL,
// PULL-without-EVM) or an assignment (PUSH) names an event, a BU and the
// BU's slot; the RU answers with the fragment as one gathered operation
// (header, metadata, data segments) straight from its registered ring:
//  - data_path send: a tagged message the BU has a receive posted for;
//  - data_path write: a one-sided write into the window of (slot, this RU)
//    in the BU's memory (WindowLayout), the immediate naming slot and RU.
// The segment array is sized once from the fragment layout and checked
// against the driver's segments per operation at construction.
// Under on_failure abort the ring is a pure function of the event id: a
// fragment may leave from any slot (one nobody else sends from, near its
// home), and nothing is kept. Under on_failure exclude the ring is a readout
// buffer (RingOwnership): a fragment lives in its home slot from the first
// request for its event until the EVM's release says the event is built, so
// a reassigned event is served again from the data it had; a request whose
// slot another unacknowledged event holds (or whose event was released
// already) is a ring overrun, counted (an integrity error, the first named
// in integrity_problem) and never passed off as sound. A request carries
// the watermark the EVM had released when it assigned the event: one ahead
// of the releases received waits (parked) for that release, which is on
// its way. Releases come only from the EVM, each past the last and not
// beyond the events asked for. Requests and assignments for a BU the EVM
// excluded (or whose rank is lost) are discarded and counted, and a send to
// a lost BU that fails only frees its ring slot.
#include <memory>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/common/registered_pool.hpp"
#include "protocols/event_building/event_building_stats.hpp"
#include "units/readout_unit.hpp"
#include "units/ring_ownership.hpp"
#include "units/window_layout.hpp"

namespace evb {

class RuAgent : public Agent {
 public:
  // `windows`: per BU index, where to write (data_path write); null: send.
  RuAgent(Engine& engine, ReadoutUnit& ru, const Registration& ring, const Topology& topo,
          EventBuildingStats& stats, const std::vector<WriteTarget>* windows);
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  void on_completion(const Completion& c) override;
  void on_peer_lost(PeerId peer, int64_t now_ns) override;
  bool done() const override;
  std::string waiting_for() const override;
  // on_failure exclude: the ring's owners and the requests waiting for a
  // release (null, 0 under abort); for tests.
  const RingOwnership* ownership() const { return owned_.get(); }
  size_t parked() const { return parked_.size(); }

 private:
  void send_fragment(uint64_t event, int bu, uint32_t slot);
  // on_failure exclude: a checked request or assignment for `cmd.bu`.
  void admit(const Command& cmd);
  void overrun(const std::string& what);
  void exclude(int bu);

  struct Parked {
    PeerId from;
    Command cmd;
  };

  Engine& engine_;
  ReadoutUnit& ru_;
  const Registration& ring_;
  const Topology& topo_;
  EventBuildingStats& stats_;
  const std::vector<WriteTarget>* windows_;
  WindowLayout layout_;
  uint8_t id_ = 0;
  // Headers for sends whose ring slot is already being sent from (the slot's
  // own header room is taken); registered, stable while sends are in flight.
  RegisteredPool headers_;
  std::vector<Segment> segments_;     // 1 + meta_segments + data_segments
  std::vector<uint32_t> slot_sends_;  // sends in flight per ring slot
  size_t in_flight_ = 0;
  bool stopped_ = false;
  int bus_done_ = 0;
  std::vector<uint8_t> bu_done_;   // per BU: its bu_done arrived (pull-noevm)
  std::vector<uint8_t> excluded_;  // per BU: excluded by the EVM or lost
  // on_failure exclude only (empty otherwise: nothing is kept).
  std::unique_ptr<RingOwnership> owned_;
  std::vector<Parked> parked_;  // requests waiting for a release on its way
  size_t park_limit_ = 0;       // two per BU slot (see the constructor)
};

// The immediate of a fragment write: which slot of the BU and which RU.
inline uint32_t fragment_immediate(uint32_t slot, int ru, int nodes) {
  return slot * static_cast<uint32_t>(nodes) + static_cast<uint32_t>(ru);
}

}  // namespace evb
