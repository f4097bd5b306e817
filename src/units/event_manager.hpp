#pragma once
// EventManager (EVM): hands out event ids against BU credits and knows when
// the run may end. Credit-driven assignment balances load by itself: a BU
// that builds faster returns credits sooner and so receives more events.
// The EVM stops assigning at the deadline (or after `events` events) and the
// run ends once every assigned event has been reported complete.
// Under on_failure exclude a BU can be excluded: the events it held go back
// to a queue and are handed out again, before any new id and even after
// assignment stopped (they were assigned, so they must be built); the run
// drains only when they are built too. There the RUs also keep every
// fragment until its event is acknowledged built (hold_fragments): the EVM
// tracks the watermark W, the oldest event not yet finished (queued ones
// included), tells the RUs in batches (take_release) and holds back a new
// event e while e >= released + ring slots, the home slot of e still
// belonging to an event the RUs have not heard is built.
// Under on_ru_loss mask a lost RU is masked instead of stopping assignment:
// events go on, built from the other RUs, and the BUs report the ones built
// without a masked RU's fragment (completed(.., masked)), counted here.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace evb {

class EventManager {
 public:
  // events_limit 0: unlimited (deadline-driven).
  EventManager(int nbu, uint64_t events_limit);

  // Next event id for `bu`, or nothing when assignment has stopped (or a
  // new id is held back until a release: held_back()).
  std::optional<uint64_t> assign(int bu);
  // `bu` finished `event` (built, or incomplete for a lost RU).
  void completed(int bu, uint64_t event);
  // on_failure exclude: RUs of `ring_slots` slots keep fragments until
  // released; turns on the watermark and the back-pressure. Before assigning.
  void hold_fragments(size_t ring_slots);
  // The watermark to send the RUs now, if it moved: by a quarter of the ring
  // or more, at all when an assignment is held back for it, or when `final`.
  // It becomes released().
  std::optional<uint64_t> take_release(bool final);
  // Every event below it is finished.
  uint64_t watermark() const { return watermark_; }
  uint64_t released() const { return released_; }
  // How often a free slot got no new event because of the back-pressure.
  uint64_t held_back() const { return held_back_; }
  // Takes `bu` out: its unfinished `events` are queued for reassignment and
  // it is never assigned to again. Returns how many were queued.
  size_t exclude(int bu, const std::vector<uint64_t>& events);
  bool excluded(int bu) const { return excluded_.at(bu) != 0; }
  // BUs not excluded.
  int active() const { return active_; }
  // Events handed out a second time (after their BU was excluded).
  uint64_t reassigned() const { return reassigned_; }
  size_t pending_reassignment() const { return requeued_.size(); }
  // on_ru_loss mask: RU `ru` is out of the run (events no longer wait for
  // it). Returns the RUs left; masking one twice is a logic error.
  int mask(int ru);
  bool masked(int ru) const { return masked_.at(ru) != 0; }
  int masked_count() const { return static_cast<int>(masked_.size()) - unmasked_; }
  // `bu` finished `event`, built without the fragment of some masked RU.
  void completed_masked(int bu, uint64_t event) {
    completed(bu, event);
    ++masked_events_;
  }
  uint64_t masked_events() const { return masked_events_; }
  void stop_assigning() { stopping_ = true; }
  bool stopping() const { return stopping_; }
  // True once stopping and nothing is outstanding.
  bool drained() const { return stopping_ && outstanding_total_ == 0; }

  uint64_t assigned() const { return next_event_; }
  uint64_t completed_total() const { return completed_total_; }
  const std::vector<uint64_t>& assigned_per_bu() const { return assigned_per_bu_; }
  // Most events any one BU held at once (bounded by its credits).
  uint64_t max_outstanding() const { return max_outstanding_; }

 private:
  uint64_t events_limit_;
  uint64_t next_event_ = 0;
  uint64_t outstanding_total_ = 0;
  uint64_t completed_total_ = 0;
  bool stopping_ = false;
  uint64_t max_outstanding_ = 0;
  std::vector<uint64_t> outstanding_;
  std::vector<uint64_t> assigned_per_bu_;
  std::vector<uint8_t> excluded_;
  std::vector<uint64_t> requeued_;  // events of excluded BUs, oldest first
  size_t requeued_head_ = 0;
  int active_ = 0;
  uint64_t reassigned_ = 0;
  // hold_fragments: finished flags of events [watermark_, next_event_), by
  // event % ring_slots_ (back-pressure keeps the span within the ring).
  size_t ring_slots_ = 0;
  std::vector<uint8_t> finished_;
  uint64_t watermark_ = 0;
  uint64_t released_ = 0;
  std::vector<uint8_t> masked_;  // per RU (on_ru_loss mask)
  int unmasked_ = 0;
  uint64_t masked_events_ = 0;
  bool waiting_release_ = false;  // an assignment was held back since the last release
  uint64_t held_back_ = 0;
};

}  // namespace evb
