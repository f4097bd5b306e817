#pragma once
// MonitorHub: the monitor's side of the EVM's rank. It keeps the snapshot
// the HTTP thread formats (MonitorSnapshot): the EVM's own view (events
// assigned and built, slots held per BU, failures, exclusions, masks) and
// the stats every rank's MonitorReporter sends, each checked (the sender
// must host the unit it reports on, indices in range, the interval it
// covers by the sender's clock sound and following the last one) before it
// is used: a record is taken whole or not at all, and one older than its
// unit's last (a transport that does not keep the order) changes nothing.
// Once per report_interval it publishes a copy into MonitorState, every
// per-BU, per-RU and matrix rate computed over the senders' own intervals
// (IntervalRate): what arrived in a tick does not matter. Over
// kMatrixFullNodes nodes the matrix has a row per RU group, not per RU
// (monitor/traffic.hpp): the BUs send it so.
// It applies control requests queued by POST /control at its next tick,
// between two assignments (the event boundary: the next event to be
// assigned is the first under the change): credits and pause on the EVM
// (EvmAgent parks slots), parallel and the FUs' time on every BU,
// rate factors on each RU, pause on every rank (a paused run is not a
// silent one). Each change is recorded with its time (results.control[],
// the page's timeline) and announced on stderr, and the EVM's books begin
// a new stretch (results.phases). The `control:` list of the
// configuration is applied the same way, each entry at its time.
// Congestor ranks (`background:`) report through the same path, one record
// an interval (MonitorStat::background), summed per entry into the
// snapshot's background view; background.N.active starts and stops an
// entry's ranks (ControlKnob::background).
#include <cstdint>
#include <string>

#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/event_building/event_building_stats.hpp"
#include "protocols/event_building/evm_agent.hpp"
#include "protocols/monitor/interval_rate.hpp"
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
  MonitorHub(Engine& engine, const Topology& topo, EvmAgent& evm, EventBuildingStats& stats,
             MonitorState& state, MonitorLabels labels, bool quiet);
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  void on_completion(const Completion&) override {}
  void on_tick(int64_t now_ns) override;
  int64_t next_timer_ns() const override;
  bool done() const override { return true; }
  std::string waiting_for() const override { return "monitor: nothing"; }

 private:
  // `source`: "http" (POST /control) or "config" (the control: list).
  void apply(const ControlRequest& r, int64_t now, const char* source);
  void record(int64_t now, std::string key, std::string value);
  // The control: entries due by `now` (checked at validation).
  void apply_scheduled(int64_t now);
  void broadcast(ControlKnob knob, uint64_t value);
  void publish(int64_t now, bool finished);
  void publish_rates();
  void take_background(PeerId from, const Command& cmd, int64_t start, int64_t end);
  void switch_background(int entry, bool on, int64_t now);

  Engine& engine_;
  const Topology& topo_;
  EvmAgent& evm_;
  EventBuildingStats& stats_;
  MonitorState& state_;
  bool quiet_;
  MonitorSnapshot snapshot_;
  std::vector<IntervalRate> bu_rate_;      // by BU
  std::vector<IntervalRate> ru_rate_;      // by RU
  std::vector<IntervalRate> matrix_rate_;  // as snapshot_.matrix
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
