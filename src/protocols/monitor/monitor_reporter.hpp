#pragma once
// MonitorReporter: one per rank while the monitor is on (monitor.port or a
// `control:` list). Every report_interval it sends the EVM's rank
// (Channel::monitor) the records its family's ReporterView gives (the event
// builders': the BU's fragment bytes per RU, fragments, requests in flight,
// integrity errors and latency quantiles; the RU's fragments and bytes
// sent; event_building/event_building_live.*). Each record carries the
// interval it covers by this rank's clock (from the last report, or start,
// to now): the hub computes rates over it, not over its own ticks. These
// sends are not progress for the engine's silence check.
// It also applies the run-time changes the EVM's rank broadcasts
// (Channel::control), checked before use: only from that rank, only knobs
// this rank has, values in range; pause is the Engine's, the others the
// view's. It never holds the run open (done()).
#include <cstdint>
#include <memory>
#include <string>

#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/monitor/live_view.hpp"

namespace evb {

class MonitorReporter : public Agent {
 public:
  MonitorReporter(Engine& engine, const Topology& topo, std::unique_ptr<ReporterView> view);
  void start(int64_t now_ns) override;
  void on_command(PeerId from, const Command& cmd) override;
  void on_completion(const Completion&) override {}
  void on_tick(int64_t now_ns) override;
  int64_t next_timer_ns() const override;
  bool done() const override { return true; }
  std::string waiting_for() const override { return "monitor: nothing"; }

 private:
  void report(int64_t now);
  void send(Command c);

  Engine& engine_;
  const Topology& topo_;
  std::unique_ptr<ReporterView> view_;
  int64_t interval_ns_ = 0;
  int64_t next_ns_ = -1;
  int64_t since_ns_ = 0;  // the start of the interval being counted
  int64_t until_ns_ = 0;  // the end of the one being reported
};

}  // namespace evb
