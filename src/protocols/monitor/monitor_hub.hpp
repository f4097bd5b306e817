#pragma once
// MonitorHub: the monitor's side of the EVM's rank. It keeps the snapshot
// the HTTP thread formats (MonitorSnapshot) and, once per report_interval,
// publishes a copy into MonitorState. What it holds is the monitor's
// mechanism, the same for any protocol family: every stats record's
// interval (by the sender's clock) is checked sound before anything of it is
// used; the run's labels; control requests queued by POST /control, applied
// at its next tick, and the `control:` list of the configuration, each
// entry at its time, or late when the loop first turns after it (one due
// before the deadline is applied even after assignment has ended: a
// stalled or starved rank); each change recorded with its time and
// announced on stderr. The family's part comes through its HubView (live_view.hpp): the
// records of its units (the event builders': every BU's and RU's counts,
// the traffic matrix, event_building/event_building_live.*), its part of
// the snapshot and its knobs (credits, pause, parallel, ...), applied
// between two assignments, at the event boundary the view names.
// Congestor ranks (`background:`) report through the same path, one record
// an interval (MonitorStat::background), summed per entry into the
// snapshot's background view; background.N.active starts and stops an
// entry's ranks (ControlKnob::background).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/monitor/interval_rate.hpp"
#include "protocols/monitor/live_view.hpp"
#include "protocols/monitor/monitor_state.hpp"

namespace evb {

// The labels of every series: what runs.
struct MonitorLabels {
  std::string protocol;
  std::string variant;
  std::string data_path;
};

class MonitorHub : public Agent {
 public:
  MonitorHub(Engine& engine, const Topology& topo, std::unique_ptr<HubView> view,
             MonitorState& state, MonitorLabels labels, bool quiet);
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  void on_completion(const Completion&) override {}
  void on_tick(int64_t now_ns) override;
  int64_t next_timer_ns() const override;
  bool done() const override { return true; }
  std::string waiting_for() const override { return "monitor: nothing"; }

  // What a view's apply asks of the hub. A change recorded under the
  // request being applied (results.control[], the timeline, stderr).
  void record(int64_t now, std::string key, std::string value);
  // A knob's new value to every rank of the protocol (Channel::control).
  void broadcast(ControlKnob knob, uint64_t value);
  // Starts or stops `background` entry `entry`'s ranks.
  void switch_background(int entry, bool on, int64_t now);
  // The first event under the request being applied.
  uint64_t boundary() const { return boundary_; }

 private:
  // `source`: "http" (POST /control) or "config" (the control: list).
  void apply(const ControlRequest& r, int64_t now, const char* source);
  // The control: entries due by `now` (checked at validation).
  void apply_scheduled(int64_t now);
  void publish(int64_t now, bool finished);
  void publish_background();
  void take_background(PeerId from, const Command& cmd, int64_t start, int64_t end);

  Engine& engine_;
  const Topology& topo_;
  std::unique_ptr<HubView> view_;
  MonitorState& state_;
  bool quiet_;
  MonitorSnapshot snapshot_;
  // A congestor rank as it last reported (counters since its start barrier).
  struct CongestorSeen {
    bool reported = false;
    bool sending = false;
    uint64_t messages = 0;
    uint64_t bytes = 0;
    uint64_t received_bytes = 0;
    IntervalRate rate;  // of `bytes`, by its clock
  };
  std::vector<CongestorSeen> congestors_;  // by congestor rank - topo_.nprocs
  int64_t interval_ns_ = 0;
  int64_t next_ns_ = 0;
  bool finished_ = false;
  uint64_t boundary_ = 0;  // the first event under the request being applied
  const char* source_ = "http";
  size_t next_step_ = 0;  // of config.control
};

}  // namespace evb
