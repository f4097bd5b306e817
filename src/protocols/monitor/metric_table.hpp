#pragma once
// The monitor's metric descriptor table: every metric family /metrics serves,
// with its type, unit, labels, HELP text, the /api/state keys that carry the
// same figure, and how to read its series from a snapshot. /metrics
// (exposition.cpp) and the metrics table of docs/MONITORING.md
// (metrics_doc.cpp) are both written from it; /api/state (state_json.cpp)
// is written from the same figure tables (figures.hpp) that the run's and
// the units' families read through, taking their keys from there; unit
// tests check that every key named here is in it with the same figure.
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocols/monitor/figures.hpp"
#include "protocols/monitor/snapshot.hpp"

namespace evb {

enum class MetricType { gauge, counter, summary };
std::string_view metric_type_name(MetricType t);

// A label a family has beyond the run's protocol, variant and data_path;
// `values` gives examples or the full set for the docs ("" for an index).
struct MetricLabel {
  std::string name;
  std::string values;
};

// One series: its labels (beyond the run's, in order) and value.
struct MetricSample {
  std::vector<std::pair<std::string, std::string>> labels;
  Figure value;
};

// What a reader sees: the latest snapshot and the one before it (may be
// null: the rates are then 0).
struct MetricInput {
  const MonitorSnapshot& latest;
  const MonitorSnapshot* previous;
};

// One metric family. A family whose reader gives no series is left out of
// /metrics; before the first report (nodes 0) only the families marked
// `before_first_report` are written.
struct MetricDescriptor {
  std::string name;  // evbench_<what>_<unit>, counters ending in _total
  MetricType type = MetricType::gauge;
  std::string unit;  // for the docs: "bytes", "seconds", "0/1", ...
  std::vector<MetricLabel> labels;
  std::string help;                // the HELP line, one sentence or two
  std::vector<std::string> state;  // /api/state keys of the same figure
  bool before_first_report = false;
  std::function<std::vector<MetricSample>(const MetricInput&)> read;
};

// In /metrics order.
const std::vector<MetricDescriptor>& metric_table();

}  // namespace evb
