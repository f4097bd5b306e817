#pragma once
// EvmAgent: the EVM side of PULL and PUSH. A credit from a BU (one per free
// slot) is answered with the next event id, handed out by the protocol's
// assign_event(): to the BU (pull/), or to every RU in scheduling order
// (push/). At the deadline, or after `events` events, it
// stops assigning, waits until every assigned event is reported built, then
// sends stop to every RU and BU. It also prints the live line on stderr,
// from the bytes that BUs report with their credits.
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/common/rank_stats.hpp"
#include "units/event_manager.hpp"

namespace evb {

class EvmAgent : public Agent {
 public:
  // A finished event a BU could not identify (PUSH: no sound header arrived).
  static constexpr uint64_t kEventUnknown = UINT64_MAX;
  EvmAgent(Engine& engine, const Topology& topo, RankStats& stats, bool live);
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  void on_completion(const Completion&) override {}
  void on_tick(int64_t now_ns) override;
  int64_t next_timer_ns() const override;
  bool done() const override { return stop_sent_; }
  std::string waiting_for() const override;

 protected:
  // Hands event `event` to BU `bu`'s slot `slot` (the credit came from `from`).
  virtual void assign_event(PeerId from, int bu, uint32_t slot, uint64_t event) = 0;

  Engine& engine_;
  const Topology& topo_;

 private:
  void maybe_stop();

  RankStats& stats_;
  EventManager evm_;
  bool live_;
  uint8_t id_ = 0;
  int64_t deadline_ns_ = 0;
  int64_t next_report_ns_ = 0;
  int64_t interval_ns_ = 0;
  uint64_t interval_bytes_ = 0;
  uint64_t interval_events_ = 0;
  bool stop_sent_ = false;
  std::vector<uint8_t> held_;         // per BU slot (bu * credits + slot): holds an event
  std::vector<uint64_t> slot_event_;  // the event it holds
};

}  // namespace evb
