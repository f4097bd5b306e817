#include "protocols/monitor/metric_table.hpp"

#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "protocols/monitor/background_metrics.hpp"
#include "protocols/monitor/traffic_metrics.hpp"

namespace evb {
namespace {

using Samples = std::vector<MetricSample>;

// Seconds between the latest snapshot and the one before it (0 without one).
double interval(const MetricInput& in) {
  return in.previous ? in.latest.t_s - in.previous->t_s : 0;
}

// A family of one series without extra labels.
MetricDescriptor scalar(std::string name, MetricType type, std::string unit, std::string help,
                        std::vector<std::string> state, Figure (*read)(const MetricInput&)) {
  return {std::move(name), type,
          std::move(unit), {},
          std::move(help), std::move(state),
          false,           [read](const MetricInput& in) { return Samples{{{}, read(in)}}; }};
}

// A run-wide family of one series, read through /api/state's field at
// `path` ("run.t_s", figures.hpp), which it names as its key.
MetricDescriptor run(std::string name, MetricType type, std::string unit, std::string help,
                     std::string_view path) {
  auto read = [f = run_field(path).read](const MetricInput& in) {
    return Samples{{{}, f(in.latest, in.previous)}};
  };
  return {std::move(name), type, std::move(unit), {}, std::move(help), {std::string(path)},
          false,           read};
}

// Per-unit families: one series per BU (or RU), labelled by its index, read
// through the unit's /api/state field `key`.
template <typename Unit>
MetricDescriptor per_unit(std::string name, MetricType type, std::string unit, std::string help,
                          const UnitField<Unit>& field) {
  constexpr bool bu = std::is_same_v<Unit, MonitorBu>;
  const std::string label = bu ? "bu" : "ru";
  auto read = [label, f = field.read](const MetricInput& in) {
    const auto& units = [&]() -> const std::vector<Unit>& {
      if constexpr (bu) {
        return in.latest.eb.bus;
      } else {
        return in.latest.eb.rus;
      }
    }();
    Samples out;
    for (size_t i = 0; i < units.size(); ++i)
      out.push_back({{{label, std::to_string(i)}}, f(units[i])});
    return out;
  };
  return {std::move(name), type,
          std::move(unit), {{label, ""}},
          std::move(help), {(bu ? "bus[]." : "rus[].") + std::string(field.key)},
          false,           read};
}

MetricDescriptor bu(std::string name, MetricType type, std::string unit, std::string help,
                    std::string_view key) {
  return per_unit(std::move(name), type, std::move(unit), std::move(help), bu_field(key));
}
MetricDescriptor ru(std::string name, MetricType type, std::string unit, std::string help,
                    std::string_view key) {
  return per_unit(std::move(name), type, std::move(unit), std::move(help), ru_field(key));
}

// The quantiles of a BU's event latency, as labels and /api/state keys.
struct Quantile {
  std::string label;
  std::string_view key;
};
const std::vector<Quantile>& latency_quantiles() {
  static const std::vector<Quantile> q{
      {"0.5", "latency_p50_s"}, {"0.9", "latency_p90_s"}, {"0.99", "latency_p99_s"}};
  return q;
}

// The run as a whole: what runs, for how long, the EVM's counters and the
// rates over the last interval.
void run_families(std::vector<MetricDescriptor>& t) {
  constexpr auto gauge = MetricType::gauge;
  constexpr auto counter = MetricType::counter;
  MetricDescriptor info{
      "evbench_info",
      gauge,
      "-",
      {{"nodes", ""}},
      "What runs: protocol, variant, data path and node count as labels; the value is 1.",
      {},
      true,
      [](const MetricInput& in) {
        return Samples{{{{"nodes", std::to_string(in.latest.nodes)}}, uint64_t{1}}};
      }};
  for (const RunLabel& l : run_labels()) info.state.push_back("run." + std::string(l.key));
  info.state.push_back("run.nodes");
  t.push_back(std::move(info));
  t.push_back(run("evbench_uptime_seconds", gauge, "seconds",
                  "Time since the start of the data phase (t0) at the latest report.", "run.t_s"));
  t.back().before_first_report = true;
  t.push_back(run("evbench_report_interval_seconds", gauge, "seconds",
                  "Time between two reports of the running event builder (report_interval).",
                  "run.interval_s"));
  t.push_back(run("evbench_run_finished", gauge, "0/1",
                  "1 once assignment has ended (the last report), else 0.", "run.finished"));
  t.push_back(run("evbench_events_assigned_total", counter, "events",
                  "Events the EVM assigned to a BU since the start of the data phase (t0).",
                  "totals.events_assigned"));
  t.push_back(run("evbench_events_built_total", counter, "events",
                  "Events the EVM accepted as built since the start of the data phase (t0).",
                  "totals.events_built"));
  t.push_back(scalar("evbench_built_bytes_total", counter, "bytes",
                     "Payload bytes of the events built since the start of the data phase (t0).",
                     {}, [](const MetricInput& in) -> Figure { return in.latest.eb.bytes_built; }));
  // EVM cost: divided by evbench_events_built_total's rate, per event.
  t.push_back(
      scalar("evbench_evm_cpu_seconds_total", counter, "seconds",
             "Thread CPU time the EVM spent in its handlers (results.cost).", {},
             [](const MetricInput& in) -> Figure { return in.latest.eb.evm_cpu_ns * 1e-9; }));
  t.push_back(scalar("evbench_evm_commands_total", counter, "commands",
                     "Commands the EVM sent and received (a batch of k counts k).", {},
                     [](const MetricInput& in) -> Figure { return in.latest.eb.evm_commands; }));
  t.push_back(scalar("evbench_evm_messages_total", counter, "messages",
                     "Messages the EVM sent and received (a batch counts 1).", {},
                     [](const MetricInput& in) -> Figure { return in.latest.eb.evm_messages; }));
  t.push_back(run("evbench_events_in_flight", gauge, "events", "Events assigned and not yet built.",
                  "totals.events_in_flight"));
  // Bytes/s here, Gb/s in /api/state: the same rate, read apart.
  t.push_back(scalar(
      "evbench_aggregate_rate_bytes_per_second", gauge, "bytes/s",
      "Payload bytes of built events per second over the last report interval (0 before the "
      "second report).",
      {"totals.rate_gbps", "history[].rate_gbps"}, [](const MetricInput& in) -> Figure {
        return in.previous
                   ? per_second(in.latest.eb.bytes_built, in.previous->eb.bytes_built, interval(in))
                   : 0.0;
      }));
  t.push_back(
      run("evbench_events_per_second", gauge, "events/s",
          "Events built per second over the last report interval (0 before the second report).",
          "totals.events_per_s"));
  t.back().state.push_back("history[].events_per_s");
}

// Per BU, as it last reported.
void bu_families(std::vector<MetricDescriptor>& t) {
  constexpr auto gauge = MetricType::gauge;
  constexpr auto counter = MetricType::counter;
  t.push_back(bu("evbench_bu_received_bytes_total", counter, "bytes",
                 "Payload bytes of the fragments a BU received since t0.", "bytes"));
  t.push_back(bu("evbench_bu_fragments_received_total", counter, "fragments",
                 "Fragments a BU received since t0.", "fragments"));
  t.push_back(bu("evbench_bu_events_built_total", counter, "events",
                 "Events the EVM accepted as built from a BU since t0.", "events_built"));
  t.push_back(bu("evbench_bu_credits_in_use", gauge, "slots",
                 "A BU's slots holding an assigned event (credits in use).", "events_in_flight"));
  t.push_back(bu("evbench_bu_fu_queue_depth", gauge, "events",
                 "Built events a BU holds waiting for a free filter unit (its queue depth).",
                 "fu_queue"));
  t.push_back(bu("evbench_bu_requests_in_flight", gauge, "requests",
                 "A BU's fragment requests outstanding (pull protocols; 0 otherwise).",
                 "requests_in_flight"));
  // Typed summary, not gauge: promtool lint refuses a quantile label on
  // anything else ("non-summary metrics should not have quantile label"),
  // and a summary may leave out _sum and _count (OpenMetrics says so; the
  // 0.0.4 parsers accept it). No _sum or _count is kept, so none is written.
  MetricDescriptor latency{
      "evbench_bu_event_latency_seconds",
      MetricType::summary,
      "seconds",
      {{"bu", ""}},
      "Quantiles of a BU's event latency since t0 (0 before its first event). Quantiles only: "
      "no _sum or _count is kept.",
      {},
      false,
      [](const MetricInput& in) {
        Samples out;
        for (size_t i = 0; i < in.latest.eb.bus.size(); ++i) {
          for (const Quantile& q : latency_quantiles()) {
            out.push_back({{{"bu", std::to_string(i)}, {"quantile", q.label}},
                           bu_field(q.key).read(in.latest.eb.bus[i])});
          }
        }
        return out;
      }};
  std::string values;
  for (const Quantile& q : latency_quantiles()) {
    values += (values.empty() ? "" : ", ") + q.label;
    latency.state.push_back("bus[]." + std::string(q.key));
  }
  latency.labels.push_back({"quantile", values});
  t.push_back(std::move(latency));
  t.push_back(bu("evbench_bu_integrity_errors_total", counter, "fragments",
                 "Corrupt, duplicate or out-of-sync fragments a BU found since t0.",
                 "integrity_errors"));
  t.push_back(bu("evbench_bu_excluded", gauge, "0/1",
                 "1 when on_failure exclude took the BU out of the run.", "excluded"));
  t.push_back(bu("evbench_bu_rate_bytes_per_second", gauge, "bytes/s",
                 "Payload bytes a BU received per second over the interval(s) it reported since "
                 "the last snapshot, by its own clock.",
                 "rate_bytes_per_s"));
  t.back().state.insert(t.back().state.end(), {"bus[].gbps", "history[].bu_gbps"});
  t.push_back(bu("evbench_bu_rate_carried", gauge, "0/1",
                 "1 when no interval of the BU completed since the last snapshot: its rate is "
                 "the last one carried forward (0 after a few).",
                 "rate_carried"));
  t.back().state.push_back("history[].bu_carried");
}

// Per RU, and the RU->BU traffic matrix (traffic_metrics.cpp).
void ru_families(std::vector<MetricDescriptor>& t) {
  constexpr auto gauge = MetricType::gauge;
  constexpr auto counter = MetricType::counter;
  t.push_back(ru("evbench_ru_sent_bytes_total", counter, "bytes",
                 "Payload bytes of the fragments an RU sent since t0.", "bytes"));
  t.push_back(ru("evbench_ru_fragments_sent_total", counter, "fragments",
                 "Fragments an RU sent since t0.", "fragments"));
  t.push_back(ru("evbench_ru_rate_bytes_per_second", gauge, "bytes/s",
                 "Payload bytes an RU sent per second over the interval(s) it reported since the "
                 "last snapshot, by its own clock.",
                 "rate_bytes_per_s"));
  t.back().state.push_back("rus[].gbps");
  t.push_back(ru("evbench_ru_rate_carried", gauge, "0/1",
                 "1 when no interval of the RU completed since the last snapshot: its rate is "
                 "the last one carried forward (0 after a few).",
                 "rate_carried"));
  t.push_back(ru("evbench_ru_rate_factor", gauge, "factor",
                 "An RU's rate factor now (its ru_rate_factors entry; 1 by default).",
                 "rate_factor"));
  t.back().state.push_back("params.ru_rate_factors");
  t.push_back(
      ru("evbench_ru_masked", gauge, "0/1", "1 when on_ru_loss mask left the RU out.", "masked"));
  t.push_back(ru("evbench_ru_lost", gauge, "0/1", "1 when the RU's rank was lost.", "lost"));
  append_traffic_families(t);
}

// The knobs as they stand (POST /control changes them).
void knob_families(std::vector<MetricDescriptor>& t) {
  constexpr auto gauge = MetricType::gauge;
  t.push_back(scalar(
      "evbench_parallel", gauge, "events", "Events assigned in parallel (parallel) now.",
      {"params.parallel"},
      [](const MetricInput& in) -> Figure { return int64_t{in.latest.eb.params.parallel}; }));
  t.push_back(scalar(
      "evbench_credits", gauge, "slots", "Slots per BU in use (credits) now.", {"params.credits"},
      [](const MetricInput& in) -> Figure { return int64_t{in.latest.eb.params.credits}; }));
  t.push_back(scalar("evbench_credits_allocated", gauge, "slots",
                     "Slots per BU allocated at start (the most credits can be).",
                     {"params.credits_allocated"}, [](const MetricInput& in) -> Figure {
                       return int64_t{in.latest.eb.params.credits_allocated};
                     }));
  t.push_back(scalar("evbench_fu_processing_time_seconds", gauge, "seconds",
                     "Time a filter unit spends on each built event (fu.processing_time) now.",
                     {"params.fu.processing_time"}, [](const MetricInput& in) -> Figure {
                       return in.latest.eb.params.processing_time_s;
                     }));
  t.push_back(scalar("evbench_paused", gauge, "0/1",
                     "1 while assignment is paused (POST /control pause).", {"params.paused"},
                     [](const MetricInput& in) -> Figure { return in.latest.eb.params.paused; }));
}

// A unit's latest failure record (a unit that failed more than once shows
// its latest: one series per unit), by unit name.
std::map<std::string, const MonitorFault*> latest_fault_by_unit(const MonitorSnapshot& s) {
  std::map<std::string, const MonitorFault*> by_unit;
  for (const MonitorFault& f : s.eb.faults) by_unit[f.unit] = &f;
  return by_unit;
}

// Faults as the EVM recorded them, and run-time control changes.
void record_families(std::vector<MetricDescriptor>& t) {
  constexpr auto gauge = MetricType::gauge;
  constexpr auto counter = MetricType::counter;
  t.push_back({"evbench_faults_total",
               counter,
               "failures",
               {{"action", "`reassigned`, `masked`, `stopped`"}},
               "Failures the EVM recorded, by the action taken (reassigned, masked, stopped).",
               {"faults[].action"},
               false,
               [](const MetricInput& in) {
                 std::map<std::string, uint64_t> by_action;
                 for (const MonitorFault& f : in.latest.eb.faults) ++by_action[f.action];
                 Samples out;
                 for (const auto& [action, count] : by_action) {
                   out.push_back({{{"action", action}}, count});
                 }
                 return out;
               }});
  t.push_back({"evbench_fault_recovered",
               gauge,
               "0/1",
               {{"unit", "`BU 2`, `RU 1`"}},
               "1 when the run recovered from the unit's (latest) failure, else 0.",
               {"faults[].recovered_at_s"},
               false,
               [](const MetricInput& in) {
                 Samples out;
                 for (const auto& [unit, f] : latest_fault_by_unit(in.latest)) {
                   out.push_back({{{"unit", unit}}, f->recovered_at_s >= 0});
                 }
                 return out;
               }});
  t.push_back({"evbench_fault_recovery_seconds",
               gauge,
               "seconds",
               {{"unit", ""}},
               "Time from a unit's loss to the recovery from it (recovered units only).",
               {"faults[].lost_at_s", "faults[].recovered_at_s"},
               false,
               [](const MetricInput& in) {
                 Samples out;
                 for (const auto& [unit, f] : latest_fault_by_unit(in.latest)) {
                   if (f->recovered_at_s >= 0) {
                     out.push_back({{{"unit", unit}}, f->recovered_at_s - f->lost_at_s});
                   }
                 }
                 return out;
               }});
  t.push_back(scalar("evbench_control_changes_total", counter, "changes",
                     "Run-time changes applied (POST /control and the control: key).",
                     {"control[]"}, [](const MetricInput& in) -> Figure {
                       return static_cast<uint64_t>(in.latest.eb.control.size());
                     }));
  t.push_back({"evbench_control_last_change_seconds",
               gauge,
               "seconds",
               {},
               "When the latest run-time change applied, in seconds since t0.",
               {"control[].t_s"},
               false,
               [](const MetricInput& in) {
                 const auto& c = in.latest.eb.control;
                 return c.empty() ? Samples{} : Samples{{{}, c.back().t_s}};
               }});
}

std::vector<MetricDescriptor> build() {
  std::vector<MetricDescriptor> t;
  run_families(t);
  bu_families(t);
  ru_families(t);
  knob_families(t);
  append_background_families(t);
  record_families(t);
  return t;
}

}  // namespace

std::string_view metric_type_name(MetricType t) {
  switch (t) {
    case MetricType::gauge:
      return "gauge";
    case MetricType::counter:
      return "counter";
    case MetricType::summary:
      return "summary";
  }
  return "untyped";
}

const std::vector<MetricDescriptor>& metric_table() {
  static const std::vector<MetricDescriptor> table = build();
  return table;
}

}  // namespace evb
