#include "protocols/monitor/state_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/json_writer.hpp"
#include "protocols/monitor/background_figures.hpp"
#include "protocols/monitor/figures.hpp"
#include "protocols/monitor/traffic.hpp"

namespace evb {
namespace {

constexpr size_t kHistoryMax = 600;  // rate points the page gets at most

// Every number the page gets is finite: a non-finite input shows as 0.
double finite(double v) {
  return std::isfinite(v) ? v : 0.0;
}

// One figure under `key`: doubles finite, the others as they are.
void figure(JsonWriter& w, std::string_view key, const Figure& v) {
  if (const auto* b = std::get_if<bool>(&v)) {
    w.value(std::string(key), *b);
  } else if (const auto* d = std::get_if<double>(&v)) {
    w.value(std::string(key), finite(*d));
  } else if (const auto* n = std::get_if<uint64_t>(&v)) {
    w.value(std::string(key), *n);
  } else {
    w.value(std::string(key), std::get<int64_t>(v));
  }
}

// The run-wide figures of `group` (figures.hpp), in table order.
void run_group(JsonWriter& w, std::string_view group, const MonitorSnapshot& s,
               const MonitorSnapshot* previous) {
  for (const RunField& f : run_fields()) {
    if (f.group == group) figure(w, f.key, f.read(s, previous));
  }
}

void doubles(JsonWriter& w, const std::string& key, const std::vector<double>& v) {
  w.begin_array(key);
  for (const double x : v) w.value("", finite(x));
  w.end_array();
}

// "run", "config_yaml", "params" and "totals": what runs, how it was
// configured, the knobs, the EVM's counters and rates since `previous`.
void run_part(JsonWriter& w, const MonitorSnapshot& s, const MonitorSnapshot* previous,
              const std::string& config_yaml) {
  w.begin_object("run");
  for (const RunLabel& l : run_labels()) w.value(std::string(l.key), s.*l.value);
  run_group(w, "run", s, previous);
  w.end_object();
  w.value("config_yaml", config_yaml);
  w.begin_object("params")
      .value("parallel", s.eb.params.parallel)
      .value("credits", s.eb.params.credits)
      .value("credits_allocated", s.eb.params.credits_allocated)
      .value("fu.processing_time", finite(s.eb.params.processing_time_s));
  doubles(w, "ru_rate_factors", s.eb.params.ru_rate_factors);
  w.value("paused", s.eb.params.paused).end_object();
  w.begin_object("totals");
  run_group(w, "totals", s, previous);
  w.end_object();
}

// Every how many snapshots the history gives a point: 1, or more when the
// BUs' series of kHistoryMax points would hold over kHistoryUnitCells
// figures (traffic.hpp): the same time span, fewer points.
size_t history_stride(const std::deque<MonitorSnapshot>& h) {
  const size_t bus = h.empty() ? 0 : h.back().eb.bus.size();
  const size_t points_max = bus > 0 ? std::max<size_t>(1, kHistoryUnitCells / bus) : kHistoryMax;
  return points_max >= kHistoryMax ? 1 : (kHistoryMax + points_max - 1) / points_max;
}

// "history": one point per snapshot after the first, the last kHistoryMax,
// every history_stride()-th of them counted back from the latest.
void history_part(JsonWriter& w, const std::deque<MonitorSnapshot>& h) {
  w.begin_array("history");
  const size_t first = h.size() > kHistoryMax + 1 ? h.size() - kHistoryMax : 1;
  const size_t stride = history_stride(h);
  const size_t start = h.size() > first ? first + (h.size() - 1 - first) % stride : first;
  const RunField& rate = run_field("totals.rate_gbps");
  const RunField& events = run_field("totals.events_per_s");
  for (size_t i = start; i < h.size(); i += stride) {
    w.begin_object().value("t_s", finite(h[i].t_s));
    figure(w, "rate_gbps", rate.read(h[i], &h[i - 1]));
    figure(w, "events_per_s", events.read(h[i], &h[i - 1]));
    w.begin_array("bu_gbps");
    for (const MonitorBu& b : h[i].eb.bus) w.value("", finite(gbps(b.rate_bytes_per_s)));
    w.end_array();
    w.begin_array("bu_carried");
    for (const MonitorBu& b : h[i].eb.bus) w.value("", b.rate_carried);
    w.end_array();
    if (!h.back().background.empty()) {  // a run without background: as before
      w.begin_array("background_gbps");
      for (const MonitorBackground& b : h[i].background)
        w.value("", finite(gbps(b.rate_bytes_per_s)));
      w.end_array();
    }
    w.end_object();
  }
  w.end_array();
}

// A unit's figures (figures.hpp), after its index.
template <typename Unit>
void unit_fields(JsonWriter& w, std::span<const UnitField<Unit>> fields, const Unit& u) {
  for (const UnitField<Unit>& f : fields) figure(w, f.key, f.read(u));
}

// "bus" and "rus": each unit as it last reported, and a BU's rate.
void units_part(JsonWriter& w, const MonitorSnapshot& s) {
  w.begin_array("bus");
  for (size_t b = 0; b < s.eb.bus.size(); ++b) {
    w.begin_object().value("bu", static_cast<int64_t>(b));
    unit_fields(w, bu_fields(), s.eb.bus[b]);
    w.value("gbps", finite(gbps(s.eb.bus[b].rate_bytes_per_s))).end_object();
  }
  w.end_array();
  w.begin_array("rus");
  for (size_t i = 0; i < s.eb.rus.size(); ++i) {
    w.begin_object().value("ru", static_cast<int64_t>(i));
    unit_fields(w, ru_fields(), s.eb.rus[i]);
    w.value("gbps", finite(gbps(s.eb.rus[i].rate_bytes_per_s))).end_object();
  }
  w.end_array();
}

// "matrix": nodes x nodes, rows RUs, columns BUs; bytes since t0 and Gb/s
// as each BU measured it. A cell the snapshot lacks shows as 0. Over
// kMatrixFullNodes nodes, the cells are sums over groups of consecutive
// units (traffic.hpp) and "group_size" says how many a group holds.
void matrix_part(JsonWriter& w, const MonitorSnapshot& s) {
  const size_t group = matrix_group_size(s.nodes);
  const size_t n = matrix_groups(s.nodes);
  const std::vector<uint64_t> grouped_bytes =
      group > 1 ? grouped_matrix(s.eb.matrix, s.nodes) : std::vector<uint64_t>{};
  const std::vector<double> grouped_rates =
      group > 1 ? grouped_matrix(s.eb.matrix_rate, s.nodes) : std::vector<double>{};
  const std::vector<uint64_t>& m = group > 1 ? grouped_bytes : s.eb.matrix;
  const std::vector<double>& mr = group > 1 ? grouped_rates : s.eb.matrix_rate;
  const bool bytes = m.size() == n * n;
  const bool rates = mr.size() == n * n;
  w.begin_object("matrix").value("rows", "ru").value("cols", "bu");
  if (group > 1) w.value("group_size", static_cast<uint64_t>(group));
  w.begin_array("bytes");
  for (size_t ru = 0; ru < n; ++ru) {
    w.begin_array();
    for (size_t bu = 0; bu < n; ++bu) w.value("", bytes ? m[ru * n + bu] : uint64_t{0});
    w.end_array();
  }
  w.end_array();
  w.begin_array("gbps");
  for (size_t ru = 0; ru < n; ++ru) {
    w.begin_array();
    for (size_t bu = 0; bu < n; ++bu) w.value("", rates ? finite(gbps(mr[ru * n + bu])) : 0.0);
    w.end_array();
  }
  w.end_array();
  w.end_object();
}

// "background": each entry apart from the event builder's units, its
// figures (background_figures.hpp) and its rate in Gb/s; not written when
// the run has none.
void background_part(JsonWriter& w, const MonitorSnapshot& s) {
  if (s.background.empty()) return;
  w.begin_array("background");
  for (size_t e = 0; e < s.background.size(); ++e) {
    const MonitorBackground& b = s.background[e];
    w.begin_object().value("entry", static_cast<int64_t>(e + 1)).value("pattern", b.pattern);
    unit_fields(w, background_fields(), b);
    w.value("gbps", finite(gbps(b.rate_bytes_per_s))).end_object();
  }
  w.end_array();
}

// "faults" and "control": the EVM's records, in order.
void records_part(JsonWriter& w, const MonitorSnapshot& s) {
  w.begin_array("faults");
  for (const MonitorFault& f : s.eb.faults) {
    w.begin_object()
        .value("unit", f.unit)
        .value("cause", f.cause)
        .value("action", f.action)
        .value("lost_at_s", finite(f.lost_at_s))
        .value("detected_at_s", finite(f.detected_at_s));
    // JsonWriter has no null value: the literal stands for "not recovered".
    if (f.recovered_at_s >= 0 && std::isfinite(f.recovered_at_s)) {
      w.value("recovered_at_s", f.recovered_at_s);
    } else {
      w.raw("recovered_at_s", "null");
    }
    w.value("reassigned", f.reassigned).end_object();
  }
  w.end_array();
  w.begin_array("control");
  for (const ControlRecord& c : s.eb.control) {
    w.begin_object()
        .value("t_s", finite(c.t_s))
        .value("key", c.key)
        .value("value", c.value)
        .value("from_event", c.from_event)
        .value("source", c.source)
        .end_object();
  }
  w.end_array();
}

}  // namespace

std::string state_json(const std::deque<MonitorSnapshot>& history, const std::string& config_yaml) {
  const MonitorSnapshot empty;
  const MonitorSnapshot& latest = history.empty() ? empty : history.back();
  const MonitorSnapshot* previous = history.size() > 1 ? &history[history.size() - 2] : nullptr;
  JsonWriter w(true);  // compact: the page asks for it every interval
  w.begin_object();
  run_part(w, latest, previous, config_yaml);
  history_part(w, history);
  units_part(w, latest);
  matrix_part(w, latest);
  background_part(w, latest);
  records_part(w, latest);
  w.end_object();
  return w.str() + "\n";
}

}  // namespace evb
