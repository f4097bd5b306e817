#pragma once
// The seam between the monitor's agents and the protocol family that runs.
// MonitorHub (the EVM's rank) and MonitorReporter (every rank) hold the
// monitor's mechanism: the report interval, the interval of the sender's
// clock each record covers, the `control:` list and POST /control requests,
// the run's labels, the `background:` entries (congestors report and are
// switched beside any family), publishing into MonitorState. What a family
// shows live and lets change comes from the views it supplies: a HubView on
// the hub's rank (its records taken, its part of the snapshot, its knobs)
// and a ReporterView on every rank (its records sent, its knobs applied).
// The event builders' are event_building/event_building_live.*; nothing in
// monitor/ includes a family's header.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "core/messages.hpp"
#include "drivers/api/driver.hpp"
#include "protocols/monitor/control.hpp"
#include "protocols/monitor/interval_rate.hpp"
#include "protocols/monitor/snapshot.hpp"

namespace evb {

class Engine;
class MonitorHub;

// A stats record the hub received: its sender, and the interval of the
// sender's clock it covers (checked sound before a view sees it).
struct StatsRecord {
  const Engine& engine;
  PeerId from;
  const Command& cmd;
  int64_t start_ns;
  int64_t end_ns;

  // Ends the run naming the sender ("monitor: stats from P refused: what").
  [[noreturn]] void refuse(const std::string& what) const;
  // Refuses a counter that is not sound over the record's interval; false
  // when the record is older than the last one taken of it (it adds nothing).
  bool check(const IntervalRate& rate, uint64_t total) const;
  // check, then counts it in `rate` (false: older, not counted).
  bool count(IntervalRate& rate, uint64_t total) const;
};

// A control command from the hub's rank, already known to come from it.
struct ControlCommand {
  const Engine& engine;
  PeerId from;
  const Command& cmd;

  // Ends the run ("rank R: a control command from P refused: what").
  [[noreturn]] void refuse(const std::string& what) const;
};

// The family's side of the hub, on the EVM's rank.
class HubView {
 public:
  virtual ~HubView() = default;
  // Its part of the snapshot before the run: sizes, the knobs as configured.
  virtual void open(MonitorSnapshot& s) = 0;
  // The stats commands one of its ranks sends the hub per interval at most.
  virtual size_t records_per_rank() const = 0;
  // A record of one of its kinds (Command::slot, MonitorStat) into the
  // snapshot, or refused; false when the kind is not its.
  virtual bool take(const StatsRecord& r, MonitorSnapshot& s) = 0;
  // The first event a change applied now is under (its event boundary).
  virtual uint64_t boundary() const = 0;
  // One request's changes in the family's order, through the hub (record,
  // broadcast); the request's background entries by hub.switch_background
  // where they fall in that order.
  virtual void apply(const ControlRequest& r, int64_t now, MonitorHub& hub, MonitorSnapshot& s) = 0;
  // A change as the hub recorded it, kept for the results and the snapshot.
  virtual void recorded(ControlRecord r, MonitorSnapshot& s) = 0;
  // Its figures into the snapshot, its rates over the intervals taken since
  // the last call.
  virtual void fill(MonitorSnapshot& s) = 0;
  // Changes can no longer be applied (assignment has ended).
  virtual bool stopping() const = 0;
  // When assignment ended (engine clock, ns; -1 before): a `control:` entry
  // due before it still applies when the loop first turns after it.
  virtual int64_t deadline_ns() const = 0;
  // The run is over: the last snapshot.
  virtual bool done() const = 0;
};

// The family's side of the reporter, on every rank.
class ReporterView {
 public:
  virtual ~ReporterView() = default;
  // Whether this rank still has figures to report (a unit of it runs).
  virtual bool reporting() const = 0;
  // This interval's records, in order, each handed to `send` (which stamps
  // the interval it covers and sends it to the hub's rank).
  virtual void report(const std::function<void(Command)>& send) = 0;
  // A knob of the family's (Command::slot, ControlKnob), checked and
  // applied; false when the knob is not its.
  virtual bool apply(const ControlCommand& c) = 0;
};

}  // namespace evb
