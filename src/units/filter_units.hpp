#pragma once
// FilterUnits: the `fu_per_bu` consumers of one BU. A built event is handed
// to a free FU, which holds it for `fu.processing_time`; the BU's slot (and
// so its credit) is released only when the FU is done, so slow filtering
// pushes back on event building as it does in a real DAQ.
#include <cstdint>
#include <deque>
#include <vector>

#include "core/config.hpp"
#include "core/ring_queue.hpp"

namespace evb {

class FilterUnits {
 public:
  FilterUnits(int bu, const Config& config);

  // Hands over the event in `slot`; it is queued when every FU is busy.
  void offer(uint32_t slot, uint64_t event, int64_t now_ns);
  // Slots whose events the FUs have finished with, by `now_ns` (a view of
  // a vector the FUs keep, valid until the next call).
  const std::vector<uint32_t>& finished(int64_t now_ns);
  // Earliest time an FU finishes (for the event loop's sleep), or -1.
  int64_t next_deadline() const;

  // Run-time control: events handed over from now on take `ns` each.
  void set_processing_time(int64_t ns) { processing_ns_ = ns; }
  int64_t processing_time_ns() const { return processing_ns_; }

  // Built events waiting for a free FU (the BU's queue depth).
  size_t waiting() const { return waiting_.size(); }
  uint64_t processed() const { return processed_; }
  uint64_t accepted() const { return accepted_; }

 private:
  struct Busy {
    uint32_t slot;
    int64_t until_ns;
  };
  void start(uint32_t slot, uint64_t event, int64_t now_ns);
  const Config& config_;
  int bu_;
  int64_t processing_ns_;
  std::vector<Busy> busy_;
  std::vector<uint32_t> done_;  // what finished() returns (capacity reused)
  RingQueue<std::pair<uint32_t, uint64_t>> waiting_;
  uint64_t processed_ = 0;
  uint64_t accepted_ = 0;
};

}  // namespace evb
