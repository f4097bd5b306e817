#pragma once
// The event builders' live view: what the monitor's agents (protocols/
// monitor/) show and change of an event builder while it runs.
// EventBuildingHubView, on the EVM's rank, takes every rank's records into
// the snapshot's EventBuilderView (each checked: the sender must host the
// unit it reports on, indices in range; a record is taken whole or not at
// all, and one older than its unit's last changes nothing), adds the EVM's
// own view (events assigned and built, slots held per BU, failures,
// exclusions, masks), computes every per-BU, per-RU and matrix rate over the
// senders' own intervals (IntervalRate), and applies the knobs: credits and
// pause on the EVM (EvmAgent parks slots), parallel and the FUs' time on
// every BU, rate factors on each RU, pause on every rank (a paused run is
// not a silent one); each change begins a new stretch of the EVM's books
// (results.phases) and is kept in results.control[]. Over kMatrixFullNodes
// nodes the matrix has a row per RU group, not per RU (monitor/traffic.hpp):
// the BUs send it so.
// EventBuildingReporterView, on every rank, sends what its units counted
// (the BU's fragment bytes per RU, or per RU group, fragments, requests in
// flight, FU queue, integrity errors, latency quantiles; the RU's fragments
// and bytes sent: 2 + rows/3 commands an interval for a BU, 1 for an RU) and
// applies the knobs its units have.
#include <cstdint>
#include <memory>
#include <vector>

#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/event_building/bu_agent.hpp"
#include "protocols/event_building/event_building_stats.hpp"
#include "protocols/event_building/evm_agent.hpp"
#include "protocols/monitor/live_view.hpp"
#include "units/builder_unit.hpp"
#include "units/filter_units.hpp"
#include "units/readout_unit.hpp"

namespace evb {

class EventBuildingHubView : public HubView {
 public:
  EventBuildingHubView(Engine& engine, const Topology& topo, EvmAgent& evm,
                       EventBuildingStats& stats);
  void open(MonitorSnapshot& s) override;
  size_t records_per_rank() const override;
  bool take(const StatsRecord& r, MonitorSnapshot& s) override;
  uint64_t boundary() const override { return evm_.next_event(); }
  void apply(const ControlRequest& r, int64_t now, MonitorHub& hub, MonitorSnapshot& s) override;
  void recorded(ControlRecord r, MonitorSnapshot& s) override;
  void fill(MonitorSnapshot& s) override;
  bool stopping() const override { return evm_.stopping(); }
  int64_t deadline_ns() const override { return evm_.deadline_ns(); }
  bool done() const override { return evm_.done(); }

 private:
  Engine& engine_;
  const Topology& topo_;
  EvmAgent& evm_;
  EventBuildingStats& stats_;
  std::vector<IntervalRate> bu_rate_;      // by BU
  std::vector<IntervalRate> ru_rate_;      // by RU
  std::vector<IntervalRate> matrix_rate_;  // as the snapshot's matrix
};

// What a rank hosts, for the reporter (null: not here).
struct ReportedUnits {
  BuAgent* bu_agent = nullptr;
  BuilderUnit* bu = nullptr;
  FilterUnits* fus = nullptr;
  Agent* ru_agent = nullptr;
  ReadoutUnit* ru = nullptr;
};

class EventBuildingReporterView : public ReporterView {
 public:
  EventBuildingReporterView(Engine& engine, const Topology& topo, EventBuildingStats& stats,
                            ReportedUnits units);
  bool reporting() const override;
  void report(const std::function<void(Command)>& send) override;
  bool apply(const ControlCommand& c) override;

 private:
  // The BU's bytes per matrix row: `per_ru` itself, or its sums per RU group.
  const std::vector<uint64_t>& by_group(const std::vector<uint64_t>& per_ru);

  Engine& engine_;
  const Topology& topo_;
  EventBuildingStats& stats_;
  ReportedUnits units_;
  std::vector<uint64_t> rows_;  // the sums per RU group (over kMatrixFullNodes nodes)
};

}  // namespace evb
