#pragma once
// BuAgent: the BU side of PULL, PUSH and PULL-without-EVM.
//  PULL: asks the EVM for events with one credit per slot; for an assigned
//    event, sends pull requests to RUs in scheduling order, `parallel` in
//    flight per slot, each with its receive posted first.
//  PUSH: pre-posts one receive per RU for each slot, then offers the slot
//    to the EVM; RUs send unsolicited.
//  PULL-without-EVM: builds events bu, bu+nBU, ... by itself and tells every
//    RU when it is finished.
// A complete event is verified (sampled), handed to the FUs, and its slot
// returned as a credit once they are done with it.
#include <string>

#include "core/topology.hpp"
#include "protocols/engine.hpp"
#include "protocols/rank_stats.hpp"
#include "units/builder_unit.hpp"
#include "units/filter_units.hpp"

namespace evb {

class BuAgent : public Agent {
 public:
  // `live`: print the live line (PULL-without-EVM has no EVM to do it).
  BuAgent(Engine& engine, BuilderUnit& bu, FilterUnits& fus, const Topology& topo, RankStats& stats,
          bool live);
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  void on_completion(const Completion& c) override;
  void on_tick(int64_t now_ns) override;
  int64_t next_timer_ns() const override;
  bool done() const override;
  std::string waiting_for() const override;

 private:
  void begin_event(uint32_t slot, uint64_t event, int64_t now);
  void issue_requests(uint32_t slot);
  void post_push_receives(uint32_t slot);
  void finish_event(uint32_t slot, int64_t now);
  void slot_released(uint32_t slot, uint64_t event, uint64_t bytes);
  bool next_own_event(uint64_t& event);
  uint64_t cookie(uint32_t slot, int ru) const {
    return Engine::make_cookie(id_, (static_cast<uint64_t>(slot) << 24) | ru);
  }

  Engine& engine_;
  BuilderUnit& bu_;
  FilterUnits& fus_;
  const Topology& topo_;
  RankStats& stats_;
  Protocol protocol_;
  uint8_t id_ = 0;
  int64_t warmup_ns_ = 0;
  int64_t end_ns_ = 0;  // deadline (0: event-count run)
  int64_t interval_ns_ = 0;
  std::vector<uint64_t> slot_bytes_;  // finished event's bytes, by slot, until released
  std::vector<uint64_t> slot_event_;
  bool stopped_ = false;     // no more events will come
  bool done_sent_ = false;   // pull-noevm: bu_done sent to every RU
  uint64_t next_event_ = 0;  // pull-noevm: own sequence
  int busy_slots_ = 0;
  bool live_ = false;
  int64_t next_report_ns_ = 0;
  uint64_t reported_bytes_ = 0;
  uint64_t reported_events_ = 0;
};

}  // namespace evb
