#pragma once
// EventManager (EVM): hands out event ids against BU credits and knows when
// the run may end. Credit-driven assignment balances load by itself: a BU
// that builds faster returns credits sooner and so receives more events.
// The EVM stops assigning at the deadline (or after `events` events) and the
// run ends once every assigned event has been reported complete.
// Under on_failure exclude a BU can be excluded: the events it held go back
// to a queue and are handed out again, before any new id and even after
// assignment stopped (they were assigned, so they must be built); the run
// drains only when they are built too.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace evb {

class EventManager {
 public:
  // events_limit 0: unlimited (deadline-driven).
  EventManager(int nbu, uint64_t events_limit);

  // Next event id for `bu`, or nothing when assignment has stopped.
  std::optional<uint64_t> assign(int bu);
  void completed(int bu);
  // Takes `bu` out: its unfinished `events` are queued for reassignment and
  // it is never assigned to again. Returns how many were queued.
  size_t exclude(int bu, const std::vector<uint64_t>& events);
  bool excluded(int bu) const { return excluded_.at(bu) != 0; }
  // BUs not excluded.
  int active() const { return active_; }
  // Events handed out a second time (after their BU was excluded).
  uint64_t reassigned() const { return reassigned_; }
  size_t pending_reassignment() const { return requeued_.size(); }
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
};

}  // namespace evb
