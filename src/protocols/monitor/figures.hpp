#pragma once
// How the monitor reads figures from snapshots, for every view of them (the
// metric table behind /metrics and docs/MONITORING.md, and /api/state): the
// rate of a counter between two snapshots, the events in flight, the run's
// own figures and labels, and the figures of one BU or RU, each by the key
// /api/state gives it. Both views call these, so a figure is computed one
// way and named once.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "protocols/monitor/snapshot.hpp"

namespace evb {

// One value as read from a snapshot: counters as exact integers, gauges as
// integers, doubles or flags. Each view formats it its own way.
using Figure = std::variant<uint64_t, int64_t, double, bool>;

// The increase of a counter between two snapshots `dt` seconds apart, times
// `factor`, per second; 0 without time between them (dt not a positive
// finite number) or when the counter went back.
double per_second(uint64_t after, uint64_t before, double dt, double factor = 1.0);

// The same for a byte counter, in Gb/s (payload bits per second over 10^9).
double gbps(uint64_t after, uint64_t before, double dt);

// Bytes per second in Gb/s (a unit's rate as the snapshot holds it).
double gbps(double bytes_per_s);

// Events assigned and not yet built (0 if the counters disagree).
uint64_t events_in_flight(const MonitorSnapshot& s);

// What runs, as text: /api/state's run.protocol, run.variant and
// run.data_path, the labels of every /metrics series.
struct RunLabel {
  std::string_view key;  // in /api/state's "run" object and as the label's name
  std::string MonitorSnapshot::*value;
};
std::span<const RunLabel> run_labels();

// One figure of the run as a whole, read from the latest snapshot and the
// one before it (null: a rate is 0), under its /api/state group ("run" or
// "totals") and key; the metric table reads the run's series by the same
// entries ("run.t_s": group.key).
struct RunField {
  std::string_view group;
  std::string_view key;
  Figure (*read)(const MonitorSnapshot& latest, const MonitorSnapshot* previous);
};

// In /api/state order (each group's object, after the run's labels).
std::span<const RunField> run_fields();

// The field at `path` ("totals.events_built"); throws std::logic_error
// when there is none.
const RunField& run_field(std::string_view path);

// One figure of a unit (BU or RU) as it last reported, under its /api/state
// key; the metric table reads per-unit series by the same key.
template <typename Unit>
struct UnitField {
  std::string_view key;
  Figure (*read)(const Unit&);
};

// In /api/state order (bus[] and rus[] objects, after the index).
std::span<const UnitField<MonitorBu>> bu_fields();
std::span<const UnitField<MonitorRu>> ru_fields();

// The field of that key; throws std::logic_error when there is none.
const UnitField<MonitorBu>& bu_field(std::string_view key);
const UnitField<MonitorRu>& ru_field(std::string_view key);

}  // namespace evb
