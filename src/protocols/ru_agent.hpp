#pragma once
// RuAgent: the RU side of PULL, PUSH and PULL-without-EVM. It answers pull
// requests (PULL) or assignments (PUSH) by sending the fragment as one
// gathered message (header, metadata, data segments) straight from its ring.
#include <deque>
#include <vector>

#include "core/topology.hpp"
#include "protocols/engine.hpp"
#include "protocols/rank_stats.hpp"
#include "protocols/stable_pool.hpp"
#include "units/readout_unit.hpp"

namespace evb {

class RuAgent : public Agent {
 public:
  RuAgent(Engine& engine, ReadoutUnit& ru, const Topology& topo, RankStats& stats);
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  void on_completion(const Completion& c) override;
  bool done() const override;
  std::string waiting_for() const override;

 private:
  void send_fragment(uint64_t event, int bu, uint32_t slot);

  Engine& engine_;
  ReadoutUnit& ru_;
  const Topology& topo_;
  RankStats& stats_;
  uint8_t id_ = 0;
  // Headers for sends whose ring slot is already being sent from (the slot's
  // own header room is taken); stable addresses while sends are in flight.
  StablePool<FragmentHeader> headers_;
  std::vector<uint32_t> slot_sends_;  // sends in flight per ring slot
  size_t in_flight_ = 0;
  bool stopped_ = false;
  int bus_done_ = 0;
};

}  // namespace evb
