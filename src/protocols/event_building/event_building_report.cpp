#include "protocols/event_building/event_building_report.hpp"

#include "core/error.hpp"
#include "core/payload_memory.hpp"
#include "protocols/api/report_parts.hpp"
#include "protocols/event_building/event_building_status.hpp"
#include "protocols/event_building/recovery.hpp"
#include "protocols/event_building/report_masked.hpp"

namespace evb {
namespace {

// " (ranks 3, 5)" for the lost-ranks line; empty when none.
std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
  if (s.empty()) return s;
  return (ranks.size() == 1 ? " (rank " : " (ranks ") + s + ")";
}

// One line per run-time change ("# control at 2.80 s: parallel 1 (from event
// 68606)"), then the session as a `control:` list to replay it.
void print_control(std::FILE* out, const EventBuildingSummary& s) {
  if (s.control.empty()) return;
  std::string replay;
  for (const ControlRecord& r : s.control) {
    std::fprintf(out, "# control at %.2f s: %s%s%s (from event %llu)\n", r.t_s, r.key.c_str(),
                 r.value.empty() ? "" : " ", r.value.c_str(),
                 static_cast<unsigned long long>(r.from_event));
    char at[32];
    std::snprintf(at, sizeof at, "%.3fs", r.t_s);
    replay += (replay.empty() ? "" : ", ") + std::string("{at: ") + at + ", " + r.key + ": " +
              (r.value.empty() ? "true" : r.value) + "}";
  }
  std::fprintf(out, "# replay: --set \"control=[%s]\"\n", replay.c_str());
}

// A steered run's window, one line per stretch between two changes, with
// the knobs that changed as they stood then and its figures as the
// headline computes them ("  0.00-1.20 s  parallel=4  12.345 Gb/s per node
// ...").
void print_phases(std::FILE* out, const EventBuildingSummary& s) {
  if (s.phases.empty()) return;
  const std::vector<std::string> knobs = steered_knobs(s.control);
  std::fprintf(out,
               "# phases of the window, split at each control change (Gb/s per node as the "
               "headline):\n");
  for (const ControlPhase& p : s.phases)
    std::fprintf(out, "  %.2f-%.2f s  %s  %.3f Gb/s per node  %.1f events/s  %llu events\n",
                 p.from_s, p.to_s, settings_text(p.settings, knobs).c_str(), p.rate_gbps,
                 p.event_rate, static_cast<unsigned long long>(p.events));
}

// One line per peer the EVM lost or excluded, with what became of its
// events and how the aggregate recovered; one per stall or delay fault.
void print_failures(std::FILE* out, const Config& c, const EventBuildingSummary& s) {
  for (const FailureRecord& f : s.failures) {
    if (f.action == "masked") {  // "# RU 2 (rank 2) lost at 2.00 s: masked; 8123 events ..."
      std::fprintf(out, "# %s (rank %d) lost at %.2f s, detected after %.2f s: masked%s",
                   f.unit.c_str(), f.rank, f.lost_at_s, f.detected_at_s - f.lost_at_s,
                   masked_line(s, f).c_str());
      std::fputs(recovery_text(recovery_after(s, f.lost_at_s, f.detected_at_s)).c_str(), out);
      continue;
    }
    std::fprintf(out, "# %s (rank %d) %s %.2f s, detected after %.2f s, %llu events reassigned",
                 f.unit.c_str(), f.rank,
                 f.cause == "silent"        ? "silent since"
                 : f.cause == "out of sync" ? "out of sync at"
                                            : "lost at",
                 f.lost_at_s, f.detected_at_s - f.lost_at_s,
                 static_cast<unsigned long long>(f.reassigned));
    if (f.bu < 0) {
      std::fprintf(out, "\n");
      continue;
    }
    if (f.recovered_at_s >= 0)
      std::fprintf(out, " (built in %.3f s)", f.recovered_at_s - f.detected_at_s);
    else
      std::fprintf(out, " (not all built)");
    std::fputs(recovery_text(recovery_after(s, f.lost_at_s, f.detected_at_s)).c_str(), out);
  }
  for (const FaultSpec& f : c.faults) {
    if (f.kind != FaultSpec::Kind::stall && f.kind != FaultSpec::Kind::delay) continue;
    std::fprintf(out, "# %s %s at %.2f s for %.2f s", to_string(f.kind), f.unit.c_str(), f.at_s,
                 f.for_s);
    std::fputs(recovery_text(recovery_after(s, f.at_s, f.at_s + f.for_s)).c_str(), out);
  }
}

}  // namespace

Config EventBuildingReport::as_ended(const Config& c, const Summary& summary) const {
  return config_as_ended(c, summary_as<EventBuildingSummary>(summary).control);
}

std::string EventBuildingReport::title(const Config& c) const {
  return c.protocol;
}

std::string EventBuildingReport::shape(const Config& c) const {
  return std::string(", ") + to_string(c.scheduling) + " scheduling";
}

void EventBuildingReport::print_settings(std::FILE* out, const Config& c,
                                         const Summary& summary) const {
  const auto& s = summary_as<EventBuildingSummary>(summary);
  std::fprintf(out,
               "# credits %d, parallel %d, data path %s, poll mode %s, fragment %s %s, ru_buffer "
               "%s, window %.2f s (warm-up %.2f s excluded)%s\n",
               c.credits, c.parallel, to_string(c.data_path), s.poll_mode.c_str(),
               human_size(c.fragment.size).c_str(), to_string(c.fragment.distribution),
               human_size(c.ru_buffer).c_str(), s.window_s, s.warmup_s,
               s.control.empty() ? "" : "; knobs as the run ended, phases below");
  if (c.fragment.events > 1)
    std::fprintf(out,
                 "# multi-event fragments: %u events per fragment (fragment.events), %s per event "
                 "and source, about %s per MEP\n",
                 c.fragment.events, human_size(c.fragment.size).c_str(),
                 human_size(c.fragment.size * c.fragment.events).c_str());
}

void EventBuildingReport::print_body(std::FILE* out, const Config& c, const Summary& summary,
                                     const ReportContext& context) const {
  const auto& s = summary_as<EventBuildingSummary>(summary);
  if (s.warmup_ignored)
    std::fprintf(out,
                 "# every event finished within the warm-up (%.2f s): the whole run is measured\n",
                 c.warmup_s);
  if (context.per_node) print_per_node_rows(out, s, "BU Gb/s");
  std::fprintf(out, "#\n# %12s %12s %12s %14s %12s %10s %10s %10s\n", "min Gb/s", "avg Gb/s",
               "max Gb/s", "aggregate Gb/s", "events/s", "p50 ms", "p99 ms", "max ms");
  std::fprintf(out, "  %12.3f %12.3f %12.3f %14.3f %12.1f %10.3f %10.3f %10.3f\n", s.min_gbps,
               s.avg_gbps, s.max_gbps, s.aggregate_gbps, s.events_per_second, s.p50_ms, s.p99_ms,
               s.max_ms);
  if (s.packing_factor > 1)
    std::fprintf(out, "# MEPs/s %.1f (events/s = MEPs/s x %llu); %llu of %llu MEPs built\n",
                 s.meps_per_second, static_cast<unsigned long long>(s.packing_factor),
                 static_cast<unsigned long long>(s.meps_built),
                 static_cast<unsigned long long>(s.meps_assigned));
  print_network_lines(out, s, "fragment");
  std::fprintf(out,
               "# fragment bytes as they arrived (not whole events): per node min %.3f avg %.3f "
               "max %.3f, aggregate %.3f Gb/s\n",
               s.arrivals.min, s.arrivals.avg, s.arrivals.max, s.arrivals.aggregate);
  std::fprintf(
      out,
      "#\n# events built %llu of %llu assigned; incomplete %llu, lost %llu, built twice %llu,"
      " duplicate %llu, corrupt %llu (%llu fragments checksummed)\n",
      static_cast<unsigned long long>(s.events_built),
      static_cast<unsigned long long>(s.events_assigned),
      static_cast<unsigned long long>(s.incomplete), static_cast<unsigned long long>(s.lost),
      static_cast<unsigned long long>(s.duplicate_events),
      static_cast<unsigned long long>(s.integrity.duplicate),
      static_cast<unsigned long long>(s.integrity.corrupt),
      static_cast<unsigned long long>(s.integrity.verified));
  if (!payload_checks(c))
    std::fprintf(out, "# payload checks off (verify.payload %s): headers checked, payloads not\n",
                 to_string(c.verify_payload));
  std::fprintf(out, "# filter units: %llu events processed, %llu accepted\n",
               static_cast<unsigned long long>(s.fu_processed),
               static_cast<unsigned long long>(s.fu_accepted));
  std::fputs(cost_line(s.cost).c_str(), out);
  std::fputs(fragment_cpu_line(s.cost.fragment_cpu).c_str(), out);
  print_corrupt_fault(out, c, s);
  print_failures(out, c, s);
  print_control(out, s);
  print_phases(out, s);
  if (!s.failures.empty() || s.late_discarded || s.incomplete_lost_peer)
    std::fprintf(out,
                 "# on_failure %s: %d rank(s) lost%s, %llu late deliveries discarded, %llu events "
                 "incomplete for lack of a lost RU\n",
                 to_string(c.on_failure), s.ranks_lost, rank_list(s.lost_ranks).c_str(),
                 static_cast<unsigned long long>(s.late_discarded),
                 static_cast<unsigned long long>(s.incomplete_lost_peer));
  if (c.on_ru_loss == OnRuLoss::mask)
    std::fprintf(out, "# on_ru_loss mask: %llu events built without a masked RU's fragment\n",
                 static_cast<unsigned long long>(s.masked_events));
  if (c.on_failure == OnFailure::exclude)
    std::fprintf(
        out,
        "# RU rings keep fragments until built: at most %llu of %llu slots held, %llu overruns, "
        "%llu assignments held back for a release\n",
        static_cast<unsigned long long>(s.max_events_held),
        static_cast<unsigned long long>(s.ring_slots),
        static_cast<unsigned long long>(s.ring_overrun),
        static_cast<unsigned long long>(s.assignments_held_back));
}

std::string data_source_loss(const EventBuildingSummary& s) {
  if (!data_source_lost(s)) return "";
  std::string out;
  char buf[160];
  for (const FailureRecord& f : lost_data_sources(s)) {
    std::snprintf(buf, sizeof buf, "%s (rank %d) at %.2f s", f.unit.c_str(), f.rank, f.lost_at_s);
    out += (out.empty() ? "" : ", ") + std::string(buf);
  }
  if (out.empty()) out = "an RU the EVM did not name";
  std::snprintf(buf, sizeof buf, ", %llu events incomplete",
                static_cast<unsigned long long>(s.incomplete_lost_peer));
  out += buf;
  if (s.assign_stopped_at_s >= 0) {
    std::snprintf(buf, sizeof buf, ", assignment stopped at %.2f s", s.assign_stopped_at_s);
    out += buf;
  }
  return out;
}

// What failed: integrity errors, a lost data source, or both. A run that
// masked RUs (on_ru_loss mask) is degraded: "RU 2 (rank 2) masked at 2.00
// s, 8123 events built without it" (the app's "OK, degraded: ...").
Verdict EventBuildingReport::verdict(const Summary& summary) const {
  const auto& s = summary_as<EventBuildingSummary>(summary);
  Verdict v;
  v.failures = integrity_failures(s, integrity_ok(s));
  if (data_source_lost(s))
    v.failures +=
        (v.failures.empty() ? "" : "; ") + std::string("data source lost: ") + data_source_loss(s);
  v.degraded = masked_summary(s);
  v.degraded_label = "masked";
  return v;
}

std::vector<std::string> EventBuildingReport::errors(const Summary& summary) const {
  const auto& s = summary_as<EventBuildingSummary>(summary);
  std::vector<std::string> out = integrity_errors(s, integrity_ok(s), event_losses(s));
  if (data_source_lost(s)) out.push_back("data source lost: " + data_source_loss(s));
  return out;
}

int EventBuildingReport::exit_code(const Summary& summary) const {
  const auto& s = summary_as<EventBuildingSummary>(summary);
  return integrity_ok(s) && !data_source_lost(s) ? kExitOk : kExitIntegrity;
}

const char* EventBuildingReport::status(const Summary& summary) const {
  return event_building_status(summary_as<EventBuildingSummary>(summary));
}

}  // namespace evb
