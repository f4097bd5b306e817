#pragma once
// WindowCpu: the RU and BU rank's own CPU time over the measured window
// (results.rank_cpu, docs/METRICS.md "CPU per fragment"). An agent of no
// role: each loop turn it compares the time with the window's edges (after
// warm-up; for deadline runs, up to the deadline), and at each edge it
// reads the process's CPU time once (getrusage, every thread) with the
// fragments the rank's RU has sent and its BU has received so far. Nothing
// is read per fragment. A window still open when the loop ends closes
// there (an `events:` run); one that never opened (an `events:` run that
// finished within its warm-up, which then measures the whole run) spans
// the whole loop, from the reading at start.
#include <cstdint>

#include "protocols/common/engine.hpp"
#include "protocols/event_building/event_building_stats.hpp"

namespace evb {

class WindowCpu final : public Agent {
 public:
  WindowCpu(Engine& engine, EventBuildingStats& stats);
  void start(int64_t now_ns) override;
  void on_completion(const Completion&) override {}
  void on_tick(int64_t now_ns) override;
  bool done() const override { return true; }
  std::string waiting_for() const override { return {}; }
  // After the loop: closes the window and writes the figures into the stats.
  void finish();

 private:
  struct Reading {
    int64_t t_ns = 0;
    double user_s = 0, system_s = 0;
    uint64_t sent = 0, received = 0;
  };
  Reading read(int64_t now_ns) const;

  Engine& engine_;
  EventBuildingStats& stats_;
  int64_t warmup_ns_ = 0;
  int64_t end_ns_ = 0;  // deadline since t0 (0: an events: run)
  Reading from_, to_;
  enum class State { before, open, closed } state_ = State::before;
};

}  // namespace evb
