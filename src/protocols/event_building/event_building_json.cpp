#include <algorithm>

#include "core/payload_memory.hpp"
#include "protocols/api/report_parts.hpp"
#include "protocols/common/fault_injector.hpp"
#include "protocols/event_building/event_building_report.hpp"
#include "protocols/event_building/event_building_status.hpp"
#include "protocols/event_building/recovery.hpp"
#include "protocols/event_building/report_masked.hpp"

namespace evb {
namespace {

// One entry per configured stall, delay, kill or desync: its unit and rank,
// and for a fault that ends, how the aggregate recovered.
void fault_entries(JsonWriter& w, const Config& c, const Topology& t,
                   const EventBuildingSummary& s) {
  for (const FaultSpec& f : c.faults) {
    if (f.kind == FaultSpec::Kind::corrupt) continue;  // write_corrupt_fault's entry
    w.begin_object();
    w.value("kind", to_string(f.kind));
    w.value("unit", f.unit);
    w.value("rank", rank_of_unit(t, f.unit));
    w.value("at_s", f.at_s);
    // A desync lasts to the end and ends the run: no duration, nothing to recover to.
    const bool lasting = f.kind == FaultSpec::Kind::kill || f.kind == FaultSpec::Kind::desync;
    if (!lasting) w.value("for_s", f.for_s);
    if (f.kind == FaultSpec::Kind::delay) w.value("by_s", f.by_s);
    if (f.kind == FaultSpec::Kind::desync) {
      w.value("by_events", static_cast<int64_t>(f.by_events));
      w.value("out_of_sync", s.integrity.out_of_sync);
    }
    if (!lasting) recovery_fields(w, recovery_after(s, f.at_s, f.at_s + f.for_s));
    w.end_object();
  }
}

// What the EVM saw: one entry per lost or excluded peer, with what became
// of its events and how the aggregate recovered.
void failure_entries(JsonWriter& w, const EventBuildingSummary& s) {
  for (const FailureRecord& f : s.failures) {
    w.begin_object();
    w.value("kind", f.cause == "silent"        ? "excluded_silent"
                    : f.cause == "out of sync" ? "out_of_sync"
                                               : "peer_lost");
    w.value("unit", f.unit);
    w.value("rank", f.rank);
    w.value("lost_at_s", f.lost_at_s);
    w.value("detected_at_s", f.detected_at_s);
    w.value("time_to_detect_s", f.detected_at_s - f.lost_at_s);
    w.value("events_reassigned", f.reassigned);
    if (!f.action.empty()) w.value("action", f.action);  // reassigned, masked, stopped
    if (f.bu >= 0) {
      if (f.recovered_at_s >= 0)
        w.value("time_to_rebuild_s", f.recovered_at_s - f.detected_at_s);
      else
        w.raw("time_to_rebuild_s", "null");
      recovery_fields(w, recovery_after(s, f.lost_at_s, f.detected_at_s));
    } else if (f.action == "masked") {  // back to (N - masked) / N of the level
      w.raw("time_to_rebuild_s", "null");
      w.value("events_built_without", built_without(s, f));
      recovery_fields(w, recovery_after(s, f.lost_at_s, f.detected_at_s));
    } else {  // a lost RU ends assignment: nothing to recover to
      w.raw("time_to_rebuild_s", "null");
      recovery_fields(w, AggregateRecovery{});
    }
    w.end_object();
  }
}

// The knobs in `keys` as JSON (results.phases[].settings), or every knob
// (results.control_initial).
void knobs_json(JsonWriter& w, const std::string& name, const ControlKnobs& k,
                const std::vector<std::string>& keys) {
  const auto has = [&](const char* key) {
    return keys.empty() || std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  w.begin_object(name);
  if (has("parallel")) w.value("parallel", k.parallel);
  if (has("credits")) w.value("credits", k.credits);
  if (has("fu.processing_time")) w.value("fu.processing_time", k.processing_time_s);
  if (has("ru_rate_factors")) {
    w.begin_array("ru_rate_factors");
    for (double f : k.ru_rate_factors) w.value("", f);
    w.end_array();
  }
  if (has("paused")) w.value("paused", k.paused);
  if (has("background") && !k.background.empty()) {  // runs without background: as before
    w.begin_array("background_active");
    for (const bool on : k.background) w.value("", on);
    w.end_array();
  }
  w.end_object();
}

// A steered run: the knobs it started with, and its window split at each
// change (results.phases; empty without changes).
void phase_fields(JsonWriter& w, const EventBuildingSummary& s) {
  knobs_json(w, "control_initial", s.control_initial, {});
  const std::vector<std::string> steered = steered_knobs(s.control);
  w.begin_array("phases");
  for (const ControlPhase& p : s.phases) {
    w.begin_object();
    w.value("from_s", p.from_s);
    w.value("to_s", p.to_s);
    knobs_json(w, "settings", p.settings, steered);
    w.value("events", p.events);
    w.value("rate_gbps", p.rate_gbps);
    w.value("event_rate", p.event_rate);
    w.end_object();
  }
  w.end_array();
}

// The fewest and most events a BU built, over the run and in the window.
void events_per_bu_json(JsonWriter& w, const EventBuildingSummary& s) {
  if (s.built_per_bu.empty()) return;
  const auto [built_min, built_max] =
      std::minmax_element(s.built_per_bu.begin(), s.built_per_bu.end());
  const auto [window_min, window_max] =
      std::minmax_element(s.in_window_per_bu.begin(), s.in_window_per_bu.end());
  w.begin_object("events_per_bu");
  w.value("min", *built_min);
  w.value("max", *built_max);
  w.value("min_in_window", *window_min);
  w.value("max_in_window", *window_max);
  w.end_object();
}

}  // namespace

void EventBuildingReport::status_fields(JsonWriter& w, const Summary& summary) const {
  const auto& s = summary_as<EventBuildingSummary>(summary);
  write_loss_fields(w, lost_data_sources(s), s.assign_stopped_at_s);
}

void EventBuildingReport::results_fields(JsonWriter& w, const Config& c, const Topology& t,
                                         const Summary& summary, const ReportContext&) const {
  const auto& s = summary_as<EventBuildingSummary>(summary);
  OwnFigures own;
  own.warmup_ignored = s.warmup_ignored;
  own.fragments_in_place = s.fragments_in_place;
  own.arrivals = &s.arrivals;
  own.p50_ms = s.p50_ms;
  own.p99_ms = s.p99_ms;
  own.max_ms = s.max_ms;
  write_figures(w, s, own);
  events_per_bu_json(w, s);
  if (s.packing_factor > 1) {  // MEPs (fragment.events): the events above are p x these
    w.value("packing_factor", s.packing_factor);
    w.value("meps_built", s.meps_built);
    w.value("meps_assigned", s.meps_assigned);
    w.value("meps_per_second", s.meps_per_second);
  }
  w.begin_object("integrity");
  write_integrity_counters(w, s, event_losses(s));
  // off: header checks only (verify.payload; `evbench sim` shares payloads).
  w.value("payload_checks", std::string(payload_checks(c) ? "on" : "off"));
  w.value("incomplete_lost_peer", s.incomplete_lost_peer);
  masked_events_json(w, s);  // on_ru_loss mask: built without a masked RU
  w.value("late_discarded", s.late_discarded);
  w.value("ring_overrun", s.ring_overrun);
  w.value("first_problem", s.integrity_problem);
  w.end_object();
  write_memory(w, s);
  w.begin_array("faults");
  write_corrupt_fault(w, c, s);
  fault_entries(w, c, t, s);
  failure_entries(w, s);
  w.end_array();
  // The monitor's run-time changes, in order: a tuning session as data.
  w.begin_array("control");
  for (const ControlRecord& r : s.control) {
    w.begin_object();
    w.value("t_s", r.t_s);
    w.value("key", r.key);
    w.value("value", r.value);
    w.value("from_event", r.from_event);
    w.value("source", r.source);
    w.end_object();
  }
  w.end_array();
  phase_fields(w, s);
  write_bounds(w, event_bounds(s));
  w.value("samples_from", s.samples_from);
  write_samples(w, c, s.sample_bytes, s.sample_events);
  write_cost_json(w, s.cost);
  write_rank_cpu(w, s.cost.fragment_cpu);
}

}  // namespace evb
