#include "monitor/exposition.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

namespace evb {
namespace {

// Text-format escaping (exposition format 0.0.4): label values escape
// backslash, double quote and newline; HELP text escapes backslash and
// newline only.
std::string escape_label(std::string_view v) {
  std::string o;
  o.reserve(v.size());
  for (const char c : v) {
    if (c == '\\') {
      o += "\\\\";
    } else if (c == '"') {
      o += "\\\"";
    } else if (c == '\n') {
      o += "\\n";
    } else {
      o += c;
    }
  }
  return o;
}

std::string escape_help(std::string_view v) {
  std::string o;
  for (const char c : v) {
    if (c == '\\') {
      o += "\\\\";
    } else if (c == '\n') {
      o += "\\n";
    } else {
      o += c;
    }
  }
  return o;
}

// Sample values: counters exactly as integers; other values in the shortest
// form that reads back to the same double, with the format's spellings of
// the non-finite ones.
std::string number(uint64_t v) {
  return std::to_string(v);
}
std::string number(bool v) {
  return v ? "1" : "0";
}
std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}
std::string number(int v) {
  return std::to_string(v);
}

std::string label(std::string_view name, std::string_view value) {
  return std::string(name) + "=\"" + escape_label(value) + "\"";
}

// Rates over the last interval: the increase of a counter between two
// snapshots over the time between them; 0 when there is no earlier
// snapshot, no time between them, or the counter went back.
double per_second(uint64_t after, uint64_t before, double dt) {
  if (!(dt > 0) || after < before) return 0;
  return static_cast<double>(after - before) / dt;
}

// One metric family: HELP and TYPE once, then its samples, each with the
// run's labels first. A family without samples is left out.
struct Sample {
  std::string labels;  // extra labels, already formatted (`bu="1"`), may be empty
  std::string value;
};

class Writer {
 public:
  explicit Writer(const MonitorSnapshot& s)
      : run_labels_(label("protocol", s.protocol) + "," + label("variant", s.variant) + "," +
                    label("data_path", s.data_path)) {}

  void family(std::string_view name, std::string_view type, std::string_view help,
              const std::vector<Sample>& samples) {
    if (samples.empty()) return;
    out_ += "# HELP " + std::string(name) + " " + escape_help(help) + "\n";
    out_ += "# TYPE " + std::string(name) + " " + std::string(type) + "\n";
    for (const Sample& s : samples) {
      out_ += std::string(name) + "{" + run_labels_;
      if (!s.labels.empty()) out_ += "," + s.labels;
      out_ += "} " + s.value + "\n";
    }
  }
  // A family of one series without extra labels.
  void single(std::string_view name, std::string_view type, std::string_view help,
              std::string value) {
    family(name, type, help, {{"", std::move(value)}});
  }

  std::string take() { return std::move(out_); }

 private:
  std::string run_labels_;
  std::string out_;
};

// Per-unit families: one sample per BU (or RU), labelled by its index.
template <typename Unit, typename F>
std::vector<Sample> per_unit(const std::vector<Unit>& units, std::string_view key, F value) {
  std::vector<Sample> out;
  for (size_t i = 0; i < units.size(); ++i) {
    out.push_back({label(key, std::to_string(i)), value(i, units[i])});
  }
  return out;
}

// The run as a whole: what runs, for how long, the EVM's counters and the
// rates over the last interval.
void run_families(Writer& w, const MonitorSnapshot& s, const MonitorSnapshot* prev) {
  w.single("evbench_report_interval_seconds", "gauge",
           "Time between two reports of the running event builder (report_interval).",
           number(s.interval_s));
  w.single("evbench_run_finished", "gauge",
           "1 once assignment has ended (the last report), else 0.", number(s.finished));
  w.single("evbench_events_assigned_total", "counter",
           "Events the EVM assigned to a BU since the start of the data phase (t0).",
           number(s.events_assigned));
  w.single("evbench_events_built_total", "counter",
           "Events the EVM accepted as built since the start of the data phase (t0).",
           number(s.events_built));
  w.single("evbench_built_bytes_total", "counter",
           "Payload bytes of the events built since the start of the data phase (t0).",
           number(s.bytes_built));
  const uint64_t in_flight =
      s.events_assigned > s.events_built ? s.events_assigned - s.events_built : 0;
  w.single("evbench_events_in_flight", "gauge", "Events assigned and not yet built.",
           number(in_flight));
  const double dt = prev ? s.t_s - prev->t_s : 0;
  w.single("evbench_aggregate_rate_bytes_per_second", "gauge",
           "Payload bytes of built events per second over the last report interval (0 before the "
           "second report).",
           number(prev ? per_second(s.bytes_built, prev->bytes_built, dt) : 0.0));
  w.single("evbench_events_per_second", "gauge",
           "Events built per second over the last report interval (0 before the second report).",
           number(prev ? per_second(s.events_built, prev->events_built, dt) : 0.0));
}

// Per BU, as it last reported.
void bu_families(Writer& w, const MonitorSnapshot& s, const MonitorSnapshot* prev) {
  const auto& b = s.bus;
  w.family("evbench_bu_received_bytes_total", "counter",
           "Payload bytes of the fragments a BU received since t0.",
           per_unit(b, "bu", [](size_t, const MonitorBu& u) { return number(u.bytes); }));
  w.family("evbench_bu_fragments_received_total", "counter", "Fragments a BU received since t0.",
           per_unit(b, "bu", [](size_t, const MonitorBu& u) { return number(u.fragments); }));
  w.family("evbench_bu_events_built_total", "counter",
           "Events the EVM accepted as built from a BU since t0.",
           per_unit(b, "bu", [](size_t, const MonitorBu& u) { return number(u.events_built); }));
  w.family("evbench_bu_credits_in_use", "gauge",
           "A BU's slots holding an assigned event (credits in use).",
           per_unit(b, "bu", [](size_t, const MonitorBu& u) {
             return number(static_cast<uint64_t>(u.events_in_flight));
           }));
  w.family("evbench_bu_fu_queue_depth", "gauge",
           "Built events a BU holds waiting for a free filter unit (its queue depth).",
           per_unit(b, "bu", [](size_t, const MonitorBu& u) {
             return number(static_cast<uint64_t>(u.fu_queue));
           }));
  w.family("evbench_bu_requests_in_flight", "gauge",
           "A BU's fragment requests outstanding (pull protocols; 0 otherwise).",
           per_unit(b, "bu", [](size_t, const MonitorBu& u) {
             return number(static_cast<uint64_t>(u.requests_in_flight));
           }));
  std::vector<Sample> latency;
  for (size_t i = 0; i < b.size(); ++i) {
    const std::string bu = label("bu", std::to_string(i));
    latency.push_back({bu + "," + label("quantile", "0.5"), number(b[i].latency_p50_s)});
    latency.push_back({bu + "," + label("quantile", "0.9"), number(b[i].latency_p90_s)});
    latency.push_back({bu + "," + label("quantile", "0.99"), number(b[i].latency_p99_s)});
  }
  // Typed summary, not gauge: promtool lint refuses a quantile label on
  // anything else ("non-summary metrics should not have quantile label"),
  // and a summary may leave out _sum and _count (OpenMetrics says so; the
  // 0.0.4 parsers accept it). No _sum or _count is kept, so none is written.
  w.family("evbench_bu_event_latency_seconds", "summary",
           "Quantiles of a BU's event latency since t0 (0 before its first event). Quantiles only: "
           "no _sum or _count is kept.",
           latency);
  w.family(
      "evbench_bu_integrity_errors_total", "counter",
      "Corrupt, duplicate or out-of-sync fragments a BU found since t0.",
      per_unit(b, "bu", [](size_t, const MonitorBu& u) { return number(u.integrity_errors); }));
  w.family("evbench_bu_excluded", "gauge", "1 when on_failure exclude took the BU out of the run.",
           per_unit(b, "bu", [](size_t, const MonitorBu& u) { return number(u.excluded); }));
  const double dt = prev ? s.t_s - prev->t_s : 0;
  w.family("evbench_bu_rate_bytes_per_second", "gauge",
           "Payload bytes a BU received per second over the last report interval.",
           per_unit(b, "bu", [&](size_t i, const MonitorBu& u) {
             const bool had = prev && i < prev->bus.size();
             return number(had ? per_second(u.bytes, prev->bus[i].bytes, dt) : 0.0);
           }));
}

// Per RU, and the RU->BU traffic matrix.
void ru_families(Writer& w, const MonitorSnapshot& s) {
  const auto& r = s.rus;
  w.family("evbench_ru_sent_bytes_total", "counter",
           "Payload bytes of the fragments an RU sent since t0.",
           per_unit(r, "ru", [](size_t, const MonitorRu& u) { return number(u.bytes); }));
  w.family("evbench_ru_fragments_sent_total", "counter", "Fragments an RU sent since t0.",
           per_unit(r, "ru", [](size_t, const MonitorRu& u) { return number(u.fragments); }));
  w.family("evbench_ru_rate_factor", "gauge",
           "An RU's rate factor now (its ru_rate_factors entry; 1 by default).",
           per_unit(r, "ru", [](size_t, const MonitorRu& u) { return number(u.rate_factor); }));
  w.family("evbench_ru_masked", "gauge", "1 when on_ru_loss mask left the RU out.",
           per_unit(r, "ru", [](size_t, const MonitorRu& u) { return number(u.masked); }));
  w.family("evbench_ru_lost", "gauge", "1 when the RU's rank was lost.",
           per_unit(r, "ru", [](size_t, const MonitorRu& u) { return number(u.lost); }));
  std::vector<Sample> traffic;
  const auto n = static_cast<size_t>(s.nodes > 0 ? s.nodes : 0);
  if (s.matrix.size() == n * n) {
    for (size_t ru = 0; ru < n; ++ru) {
      for (size_t bu = 0; bu < n; ++bu) {
        traffic.push_back({label("ru", std::to_string(ru)) + "," + label("bu", std::to_string(bu)),
                           number(s.matrix[ru * n + bu])});
      }
    }
  }
  w.family("evbench_traffic_bytes_total", "counter",
           "Payload bytes RU `ru` sent to BU `bu` since t0.", traffic);
}

// The knobs as they stand (POST /control changes them).
void knob_families(Writer& w, const MonitorParams& p) {
  w.single("evbench_parallel", "gauge", "Events assigned in parallel (parallel) now.",
           number(p.parallel));
  w.single("evbench_credits", "gauge", "Slots per BU in use (credits) now.", number(p.credits));
  w.single("evbench_credits_allocated", "gauge",
           "Slots per BU allocated at start (the most credits can be).",
           number(p.credits_allocated));
  w.single("evbench_fu_processing_time_seconds", "gauge",
           "Time a filter unit spends on each built event (fu.processing_time) now.",
           number(p.processing_time_s));
  w.single("evbench_paused", "gauge", "1 while assignment is paused (POST /control pause).",
           number(p.paused));
}

// Faults as the EVM recorded them, and run-time control changes. A unit that
// failed more than once shows its latest record (one series per unit).
void fault_families(Writer& w, const MonitorSnapshot& s) {
  std::map<std::string, uint64_t> by_action;
  std::map<std::string, const MonitorFault*> by_unit;
  for (const MonitorFault& f : s.faults) {
    ++by_action[f.action];
    by_unit[f.unit] = &f;
  }
  std::vector<Sample> actions;
  for (const auto& [action, count] : by_action) {
    actions.push_back({label("action", action), number(count)});
  }
  w.family("evbench_faults_total", "counter",
           "Failures the EVM recorded, by the action taken (reassigned, masked, stopped).",
           actions);
  std::vector<Sample> recovered;
  std::vector<Sample> recovery;
  for (const auto& [unit, f] : by_unit) {
    const bool done = f->recovered_at_s >= 0;
    recovered.push_back({label("unit", unit), number(done)});
    if (done) recovery.push_back({label("unit", unit), number(f->recovered_at_s - f->lost_at_s)});
  }
  w.family("evbench_fault_recovered", "gauge",
           "1 when the run recovered from the unit's (latest) failure, else 0.", recovered);
  w.family("evbench_fault_recovery_seconds", "gauge",
           "Time from a unit's loss to the recovery from it (recovered units only).", recovery);
  w.single("evbench_control_changes_total", "counter",
           "Run-time changes applied (POST /control and the control: key).",
           number(static_cast<uint64_t>(s.control.size())));
  if (!s.control.empty()) {
    w.single("evbench_control_last_change_seconds", "gauge",
             "When the latest run-time change applied, in seconds since t0.",
             number(s.control.back().t_s));
  }
}

}  // namespace

std::string prometheus_text(const MonitorSnapshot& latest, const MonitorSnapshot* previous) {
  Writer w(latest);
  w.family("evbench_info", "gauge",
           "What runs: protocol, variant, data path and node count as labels; the value is 1.",
           {{label("nodes", std::to_string(latest.nodes)), "1"}});
  w.single("evbench_uptime_seconds", "gauge",
           "Time since the start of the data phase (t0) at the latest report.", number(latest.t_s));
  // Before the first report there is nothing more to say.
  if (latest.nodes <= 0) return w.take();
  run_families(w, latest, previous);
  bu_families(w, latest, previous);
  ru_families(w, latest);
  knob_families(w, latest.params);
  fault_families(w, latest);
  return w.take();
}

}  // namespace evb
