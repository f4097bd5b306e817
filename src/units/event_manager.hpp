#pragma once
// EventManager (EVM): hands out event ids against BU credits and knows when
// the run may end. Credit-driven assignment balances load by itself: a BU
// that builds faster returns credits sooner and so receives more events.
// The EVM stops assigning at the deadline (or after `events` events) and the
// run ends once every assigned event has been reported complete.
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
};

}  // namespace evb
