#pragma once
// MonitorReporter: one per rank while the monitor is on (monitor.port). Every
// report_interval it sends the EVM's rank (Channel::monitor) what this
// rank's units counted: the BU's fragment bytes per RU, fragments, requests
// in flight, integrity errors and latency quantiles; the RU's fragments and
// bytes sent. Each record carries the interval it covers by this rank's
// clock (from the last report, or start, to now): the hub computes rates
// over it, not over its own ticks. Over kMatrixFullNodes nodes the BU sends
// its bytes per RU group (monitor/traffic.hpp), summed here: the views show
// no finer, and it sends 2 + 16/3 commands an interval instead of 2 + N/3.
// These sends are not progress for the engine's silence check.
// It also applies the run-time changes the EVM's rank broadcasts
// (Channel::control), checked before use: only from that rank, only knobs
// this rank has, values in range. It never holds the run open (done()).
#include <cstdint>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/event_building/bu_agent.hpp"
#include "protocols/event_building/event_building_stats.hpp"
#include "units/builder_unit.hpp"
#include "units/filter_units.hpp"
#include "units/readout_unit.hpp"

namespace evb {

// What a rank hosts, for the reporter (null: not here).
struct ReportedUnits {
  BuAgent* bu_agent = nullptr;
  BuilderUnit* bu = nullptr;
  FilterUnits* fus = nullptr;
  Agent* ru_agent = nullptr;
  ReadoutUnit* ru = nullptr;
};

class MonitorReporter : public Agent {
 public:
  MonitorReporter(Engine& engine, const Topology& topo, EventBuildingStats& stats,
                  ReportedUnits units);
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  void on_completion(const Completion&) override {}
  void on_tick(int64_t now_ns) override;
  int64_t next_timer_ns() const override;
  bool done() const override { return true; }
  std::string waiting_for() const override { return "monitor: nothing"; }

 private:
  bool reporting() const;
  void report(int64_t now);
  void send(Command c);
  // The BU's bytes per matrix row: `per_ru` itself, or its sums per RU group.
  const std::vector<uint64_t>& by_group(const std::vector<uint64_t>& per_ru);

  Engine& engine_;
  const Topology& topo_;
  EventBuildingStats& stats_;
  ReportedUnits units_;
  int64_t interval_ns_ = 0;
  int64_t next_ns_ = -1;
  int64_t since_ns_ = 0;        // the start of the interval being counted
  int64_t until_ns_ = 0;        // the end of the one being reported
  std::vector<uint64_t> rows_;  // the sums per RU group (over kMatrixFullNodes nodes)
};

}  // namespace evb
