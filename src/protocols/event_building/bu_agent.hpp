#pragma once
// BuAgent: what every event builder's BU does, whatever the protocol. It
// takes fragments in (a completed receive on data_path send, a write landing
// in its windows on data_path write), verifies them (BuilderUnit::accept),
// finishes events, hands them to the FUs, and releases a slot once the FUs
// are done with it. How events reach a slot and what a free slot does next
// is the protocol's: pull/, push/ and pull_noevm/ derive from it.
// Under on_failure exclude it sends the EVM a heartbeat every quarter of
// `failure_detection`; when an RU is lost, an event that has every fragment
// but that RU's is finished as incomplete (never built short, not given to
// the FUs) and its slot handed back; when the EVM excludes this BU it drops
// everything and leaves (what still arrives is discarded and counted).
// Under on_ru_loss mask such an event is built instead (given to the FUs,
// counted built and, per missing RU, masked) and its credit tells the EVM
// so; the BU stops asking a lost RU for fragments once its driver reports
// the loss, and events that were waiting for it complete then.
// With local_fragment in_place, the fragment of the RU in the same process
// is not requested: the BU checks it in the RU's ring (same checks as any
// fragment) and builds the event with it by reference, no copy.
// A fragment found out of sync (BuilderUnit::out_of_sync) whose slot's event
// the BU knows names its RU at once (ru_out_of_sync); in PUSH the slot's
// event came from a header, so the protocol asks the EVM which RU is wrong
// (label_disagreement) and ru_out_of_sync follows its answer.
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/event_building/event_building_stats.hpp"
#include "units/builder_unit.hpp"
#include "units/filter_units.hpp"
#include "units/readout_unit.hpp"

namespace evb {

class BuAgent : public Agent {
 public:
  // `windows`: the registration of bu.memory(). `write_path`: fragments
  // arrive as writes (no receives posted). `live`: print the live line.
  BuAgent(Engine& engine, BuilderUnit& bu, FilterUnits& fus, const Registration& windows,
          const Topology& topo, EventBuildingStats& stats, bool write_path, bool live);
  // local_fragment in_place: the fragment of `ru`, the RU of this same
  // process, is checked where it lies in its ring instead of being requested
  // and copied (used by request_fragments; PULL and PULL-without-EVM).
  void serve_local_in_place(ReadoutUnit& ru) { local_ru_ = &ru; }
  // Where an out-of-sync fragment is kept for inspection ("" or ".": here).
  void keep_fragments_in(std::string dir) { keep_dir_ = std::move(dir); }
  void on_completion(const Completion& c) override;
  void on_tick(int64_t now_ns) override;
  void on_peer_lost(PeerId peer, int64_t now_ns) override;
  int64_t next_timer_ns() const override;
  std::string waiting_for() const override;

  // The monitor's view (protocols/monitor/monitor_reporter.hpp): fragment
  // bytes received from each RU, fragments received, requests in flight.
  const std::vector<uint64_t>& bytes_from_ru() const { return bytes_from_ru_; }
  uint64_t fragments_received() const { return fragments_received_; }
  int requests_in_flight() const;
  // Run-time control: events started from now on ask `parallel` RUs at a time.
  void set_parallel(int parallel) { parallel_ = parallel; }
  int parallel() const { return parallel_; }
  int index() const { return bu_.index(); }

 protected:
  // A free slot was handed back by the FUs (carrying its finished event).
  virtual void slot_released(uint32_t slot, uint64_t event, uint64_t bytes) = 0;
  // A fragment for `slot` from RU `ru` arrived; called before it is checked
  // (PUSH starts a free slot here). Returns false to drop it as unexpected.
  virtual bool before_fragment(uint32_t /*slot*/, int /*ru*/) { return true; }
  // The slot's event took one more fragment and is not complete yet.
  virtual void after_fragment(uint32_t /*slot*/) {}
  // Whether the event in `e` has asked RU `ru` for its fragment already.
  virtual bool requested(const EventSlot& e, int ru) const = 0;
  virtual void protocol_tick(int64_t /*now_ns*/) {}
  // PUSH: RU `o.ru` and the RU that labelled the slot disagree on its event.
  virtual void label_disagreement(const OutOfSync& /*o*/) {}
  // An RU was named out of sync: end the run (PULL: tell the EVM to stop
  // assigning; PULL-without-EVM: start no more events).
  virtual void stop_for_out_of_sync(const OutOfSync& o) = 0;
  // Whether a finished event stays in its slot instead of going to the FUs
  // (PUSH: until the EVM said which RU is out of sync); released later
  // with release_held().
  virtual bool hold_finished(uint32_t /*slot*/) { return false; }
  void release_held(uint32_t slot, int64_t now);
  virtual int64_t protocol_timer_ns() const { return -1; }

  // Starts building `event` in `slot` (visit order from `scheduling`).
  void begin_event(uint32_t slot, uint64_t event, int64_t now);
  // Makes ready for RU `ru`'s fragment of `slot`: posts the receive on
  // data_path send; nothing to do on data_path write.
  void expect_fragment(uint32_t slot, int ru);
  // Pull-style requesting (PULL, PULL-without-EVM): asks the next RUs of the
  // visit order for their fragments until `parallel` requests are in flight.
  void request_fragments(uint32_t slot);
  // Offers `slot` to the EVM as a credit (PULL, PUSH), carrying the event it
  // just finished (`finished`), that event's bytes and whether this BU
  // counted it in its window, for the EVM's books (results.phases).
  void send_credit(uint32_t slot, uint64_t event, uint64_t bytes, bool finished);
  // Whether RU `ru` has been asked already (its place in the visit order is passed).
  static bool asked(const EventSlot& e, int ru);
  // The EVM excluded this BU (on_failure exclude): stop everything, leave.
  void excluded_by(PeerId from, const Command& cmd);
  // on_ru_loss mask, an RU out of sync: the EVM's `mask` command (checked:
  // only from the EVM, only under mask, a valid RU), or this BU's own
  // finding. The RU is written off as if lost: no more requests, its
  // fragments still on their way dropped (counted late_discarded), and the
  // events waiting for it built without it.
  void masked_by(PeerId from, const Command& cmd);
  void mask_out_of_sync(int ru);
  // An RU is lost and `slot` has every other fragment: finish it incomplete
  // (on_ru_loss stop) or build it without the lost RUs' fragments (mask).
  void check_incomplete(uint32_t slot);
  // Marks RU `ru` lost for this BU's books and finishes what waited for it.
  void write_off(int ru);
  // The one place an RU found out of sync is handled: RU `o.ru`'s fragment
  // in slot `o.slot` (header and MEP table at `head`, metadata + payload at
  // `body`) is labelled `o.labelled` where the slot builds `o.expected`
  // (o.in_mep: an event inside the MEP). Counts it, makes it the
  // first problem (naming BU, RU and rank, both events), keeps the fragment
  // in a file (the first per RU) and ends the run with an integrity error
  // (stop_for_out_of_sync). The event is not built.
  void ru_out_of_sync(const OutOfSync& o, const uint8_t* head, const uint8_t* body);
  // Tells the EVM RU `o.ru`'s fragment in `o.slot` is labelled `o.labelled`
  // where `o.expected` belongs (a desync command); `second`: the RU whose
  // label gave `o.expected` (PUSH), kNoRu when this BU knows the culprit.
  void report_desync(const OutOfSync& o, uint32_t second);
  bool ru_lost(int ru) const { return lost_rus_ > 0 && lost_ru_[ru]; }
  uint64_t cookie(uint32_t slot, int ru) const {
    return Engine::make_cookie(id_, (static_cast<uint64_t>(slot) << 24) | ru);
  }

  Engine& engine_;
  ReadoutUnit* local_ru_ = nullptr;   // local_fragment in_place (null: copy)
  std::vector<uint64_t> local_head_;  // in_place: the header and MEP table it checks
  BuilderUnit& bu_;
  FilterUnits& fus_;
  const Registration& windows_;
  const Topology& topo_;
  EventBuildingStats& stats_;
  bool write_path_;
  uint8_t id_ = 0;
  int64_t warmup_ns_ = 0;
  int64_t end_ns_ = 0;  // deadline (0: event-count run)
  int busy_slots_ = 0;
  bool stopped_ = false;   // no more events will come
  bool excluded_ = false;  // the EVM took this BU out of the run
  // Per slot: the watermark the EVM had released when it assigned the
  // slot's event (PULL, on_failure exclude); each pull request carries it.
  std::vector<uint64_t> released_at_assign_;

 private:
  void fragment(uint32_t slot, int ru, size_t bytes, PeerId from);
  // `masked`: built without the fragments of lost RUs (on_ru_loss mask).
  void finish_event(uint32_t slot, int64_t now, bool masked = false);

  int64_t interval_ns_ = 0;
  int64_t heartbeat_ns_ = 0;  // 0: no heartbeats (on_failure abort, no EVM)
  int64_t next_heartbeat_ns_ = 0;
  std::vector<uint8_t> lost_ru_;  // per RU (on_failure exclude)
  int lost_rus_ = 0;
  bool mask_ = false;                    // on_ru_loss mask: build without a lost RU
  std::vector<uint8_t> slot_masked_;     // per slot: its finished event was built masked
  std::vector<uint64_t> slot_bytes_;     // finished event's bytes, by slot, until released
  std::vector<uint8_t> slot_in_window_;  // per slot: its finished event counted in the window
  std::vector<uint64_t> slot_event_;
  std::vector<int> order_;  // begin_event()'s visit order (capacity reused)
  std::string keep_dir_;
  std::vector<uint8_t> kept_;  // per RU: an out-of-sync fragment was written to a file
  bool live_ = false;
  int64_t next_report_ns_ = 0;
  uint64_t reported_bytes_ = 0;
  uint64_t reported_events_ = 0;
  int parallel_ = 0;
  std::vector<uint64_t> bytes_from_ru_;  // per RU
  uint64_t fragments_received_ = 0;
};

}  // namespace evb
