#pragma once
// EvmAgent: the EVM side of PULL and PUSH. A credit from a BU (one per free
// slot) is answered with the next event id, handed out by the protocol's
// assign_event(): to the BU (pull/), or to every RU in scheduling order
// (push/). At the deadline, or after `events` events, it
// stops assigning, waits until every assigned event is reported built, then
// sends stop to every RU and BU. It also prints the live line on stderr,
// from the bytes that BUs report with their credits.
// Under on_failure exclude it watches the BUs: one whose rank is lost, or
// that sent nothing (credits, heartbeats) for `failure_detection`, is
// excluded: its unfinished events go back to the EventManager to be handed
// to the next free slots of the others, every RU and the BU itself are told
// (exclude), and whatever it sends later is discarded and counted. A lost RU
// stops assignment (on_ru_loss stop): no event can be complete any more; the
// BUs report the events that miss it as incomplete and the run ends. Under
// on_ru_loss mask it is masked instead: assignment goes on, PUSH sends it no
// more assignments, and the BUs build events without it and say so in their
// credits (value 2), counted here. A lost EVM cannot be replaced: the others
// end the run with an error naming it.
// It keeps the bytes of built events over time (RateTimeline) for the
// recovery times of results.faults, and the events and bytes built between
// two run-time changes (EventBuildingStats::phases) for results.phases: a credit
// says whether its BU counted the event in its window (Command::count).
// A BU that finds an RU out of sync (desync) makes it stop assigning: the
// events in flight finish, unbuilt, and the run ends with an integrity
// error. In PUSH the BU cannot tell which of two disagreeing RUs is wrong:
// the EVM names the one whose label differs from the event it assigned to
// the slot, and answers the BU (evm_out_of_sync.cpp).
// Under exclude the RUs also keep every fragment until its event is
// acknowledged built: the EVM sends them the release watermark (release
// command; batched by EventManager::take_release, and once more before the
// stop), puts it into every assignment (Command::value), and a free slot
// whose next event's ring slot is still held waits among the idle slots
// until a release frees it.
#include <string>
#include <utility>
#include <vector>

#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/event_building/event_building_stats.hpp"
#include "protocols/event_building/rate_timeline.hpp"
#include "units/event_manager.hpp"

namespace evb {

class EvmAgent : public Agent {
 public:
  // A finished event a BU could not identify (PUSH: no sound header arrived).
  static constexpr uint64_t kEventUnknown = UINT64_MAX;
  EvmAgent(Engine& engine, const Topology& topo, EventBuildingStats& stats, bool live);
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  void on_completion(const Completion&) override {}
  void on_tick(int64_t now_ns) override;
  void on_peer_lost(PeerId peer, int64_t now_ns) override;
  int64_t next_timer_ns() const override;
  bool done() const override { return stop_sent_; }
  std::string waiting_for() const override;

  // Run-time control (the monitor, monitor_hub.hpp). Slots numbered from
  // `credits` up and, while paused, every slot are parked instead of
  // served: a parked slot holds no event and gets its next one when the
  // change is undone. Applied between assignments, so at an event boundary.
  void set_credits(int credits);
  void set_paused(bool paused);
  // A new stretch of the run's books (EventBuildingStats::phases) from `now`, under
  // the first `changes` of EventBuildingStats::control: called once a request has
  // been applied.
  void begin_phase(int64_t now_ns, size_t changes);
  int credits() const { return credits_; }
  bool paused() const { return paused_; }
  // The monitor's view: the next event to be assigned, events assigned and
  // built, bytes of built events, slots of BU `bu` holding an event.
  uint64_t next_event() const { return evm_.assigned(); }
  uint64_t events_built() const { return evm_.completed_total(); }
  uint64_t bytes_built() const { return bytes_built_; }
  int held_slots(int bu) const;
  bool bu_excluded(int bu) const { return evm_.excluded(bu); }
  bool ru_is_masked(int ru) const { return evm_.masked(ru); }
  bool stopping() const { return evm_.stopping(); }
  // When assignment ends by the clock (start + duration), else -1 (it ends
  // after `events` events).
  int64_t deadline_ns() const { return deadline_ns_ ? deadline_ns_ : -1; }

 protected:
  // Hands event `event` to BU `bu`'s slot `slot` (the credit came from `from`).
  virtual void assign_event(PeerId from, int bu, uint32_t slot, uint64_t event) = 0;
  // Whether a BU knows the event of each slot (PULL: it asked for it), so an
  // out-of-sync report names one RU; else (PUSH) the BU learns the event from
  // the headers and names two RUs that differ.
  virtual bool bu_knows_slot_event() const { return true; }
  // The watermark the RUs have been sent (0 under on_failure abort): goes
  // into each assignment, so an RU can wait for a release still on its way.
  uint64_t released() const { return evm_.released(); }
  // on_ru_loss mask: RU `ru` was lost and is left out of assignments.
  bool ru_masked(int ru) const { return evm_.masked(ru); }

  Engine& engine_;
  const Topology& topo_;

 private:
  void maybe_stop();
  // A lost RU: stop assignment (on_ru_loss stop) or mask it.
  // `cause`: "peer lost", or "out of sync" (a desync report; masked RUs only).
  void lose_ru(int ru, PeerId peer, int64_t now, const char* cause = "peer lost");
  void on_desync(PeerId from, const Command& cmd);
  void exclude_bu(int bu, int64_t now, const char* cause, int64_t lost_ns);
  void book_reassigned_built(uint64_t event, int64_t now);
  // Books a built event into the current stretch of EventBuildingStats::phases.
  void book_phase(uint64_t bytes, bool in_window);
  // Books a finished event's bytes in EventBuildingStats::evm_sample_* (per report interval).
  void book_sample(int64_t now, uint64_t bytes);
  // on_failure exclude: sends the RUs the watermark when it is due (always
  // when `final`), then offers the idle slots again.
  void release(bool final);
  // Offers the slot to assignment; remembers it when nothing is to be had.
  void serve(PeerId from, int bu, uint32_t slot);
  double since_t0(int64_t ns) const;

  EventBuildingStats& stats_;
  EventManager evm_;
  bool live_;
  uint8_t id_ = 0;
  int64_t deadline_ns_ = 0;
  int64_t next_report_ns_ = 0;
  int64_t interval_ns_ = 0;
  uint64_t interval_bytes_ = 0;
  uint64_t interval_events_ = 0;
  bool stop_sent_ = false;
  RateTimeline timeline_;
  int64_t stopping_at_ns_ = -1;       // when assignment stopped
  std::vector<uint8_t> held_;         // per BU slot (bu * credits + slot): holds an event
  std::vector<uint64_t> slot_event_;  // the event it holds
  // on_failure exclude
  bool exclude_ = false;
  bool mask_ = false;  // on_ru_loss mask
  int64_t detection_ns_ = 0;
  std::vector<int64_t> last_heard_;                           // per BU
  std::vector<std::pair<uint64_t, size_t>> reassigned_open_;  // event, failure record index
  std::vector<size_t> open_per_record_;  // by stats_.failures index: events still to build
  struct IdleSlot {
    PeerId from;
    int bu;
    uint32_t slot;
  };
  std::vector<IdleSlot> idle_;  // free slots whose credit got no event (stopping, held back)
  // Run-time control: slots parked by a lower `credits` or a pause.
  int credits_ = 0;
  bool paused_ = false;
  std::vector<IdleSlot> parked_;
  std::vector<IdleSlot> unparking_;  // scratch of set_credits/set_paused (capacity kept)
  uint64_t bytes_built_ = 0;
  void unpark();
};

}  // namespace evb
