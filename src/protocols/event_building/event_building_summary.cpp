#include "protocols/event_building/event_building_summary.hpp"

#include <algorithm>

#include "core/histogram.hpp"
#include "core/ring_geometry.hpp"
#include "protocols/api/report_parts.hpp"
#include "protocols/event_building/event_building_report.hpp"
#include "protocols/event_building/event_building_stats_fields.hpp"

namespace evb {
namespace {

// Every BU's figures merged, with the EVM's books for what an excluded or
// lost BU built (on_failure exclude): throughput and latency over the
// window, and every assigned event accounted for as built, corrupt, out of
// sync, incomplete or lost (docs/METRICS.md).
void summarize_event_building(const Config& c, const std::vector<EventBuildingStats>& ranks,
                              EventBuildingSummary& s) {
  int64_t last = 0;
  uint64_t in_window = 0;
  uint64_t started = 0;
  Histogram latency;
  s.per_node_gbps.assign(c.nodes, 0.0);
  s.network_per_node_gbps.assign(c.nodes, 0.0);
  s.arrivals.per_node.assign(c.nodes, 0.0);
  // Under on_failure exclude the EVM's books count for an excluded BU: what
  // it reported built before it was taken out (later deliveries were
  // discarded), also when its rank was lost and sent no statistics.
  std::vector<uint64_t> accepted;
  std::vector<PhaseBook> phase_books;  // the EVM's, split at each run-time change
  std::vector<uint8_t> excluded(static_cast<size_t>(c.nodes), 0);
  s.ring_slots = min_ring_slots(c);
  s.nodes = c.nodes;
  for (const EventBuildingStats& r : ranks) {
    s.late_discarded += r.late_discarded;
    s.fragments_in_place += r.fragments_in_place;
    if (r.ru >= 0) {
      s.ring_overrun += r.ring_overrun;
      s.max_events_held = std::max(s.max_events_held, r.max_events_held);
      if (r.ring_overrun && s.integrity_problem.empty()) s.integrity_problem = r.integrity_problem;
    }
    if (!r.evm) continue;
    s.assignments_held_back = r.assignments_held_back;
    s.masked_events = r.evm_masked_events;
    accepted = r.completed_per_bu;
    s.failures = r.failures;
    s.control = r.control;
    phase_books = r.phases;
    s.rate_bins = r.rate_bins;
    s.rate_bin_s = r.rate_bin_s;
    s.assign_stopped_at_s = r.assign_stopped_at_s;
    for (int bu : r.excluded_bus)
      if (bu >= 0 && bu < c.nodes) excluded[bu] = 1;
  }
  std::vector<uint8_t> seen(static_cast<size_t>(c.nodes), 0);
  for (const EventBuildingStats& r : ranks) {
    if (r.evm) {
      s.events_assigned = r.events_assigned;
      s.max_outstanding_per_bu = r.max_outstanding_per_bu;
    }
    if (r.bu >= 0 && r.bu < c.nodes) seen[r.bu] = 1;
    s.incomplete_lost_peer += r.incomplete_lost_peer;
    if (r.bu >= 0 && r.bu < c.nodes && excluded[r.bu]) {
      s.events_built += r.bu < static_cast<int>(accepted.size()) ? accepted[r.bu] : 0;
      continue;  // its throughput and latency end at its exclusion: not merged
    }
    s.max_requests_in_flight = std::max(s.max_requests_in_flight, r.max_requests_in_flight);
    s.max_events_in_flight = std::max(s.max_events_in_flight, r.max_events_in_flight);
    if (r.bu < 0) continue;
    if (s.masked_per_ru.size() < r.masked_per_ru.size())
      s.masked_per_ru.resize(r.masked_per_ru.size());
    for (size_t k = 0; k < r.masked_per_ru.size(); ++k) s.masked_per_ru[k] += r.masked_per_ru[k];
    last = std::max(last, r.last_completion_ns);
    in_window += r.events_in_window;
    s.events_built += r.events_built;
    s.built_per_bu.push_back(r.events_built);
    s.in_window_per_bu.push_back(r.events_in_window);
    s.fu_processed += r.fu_processed;
    s.fu_accepted += r.fu_accepted;
    s.integrity.corrupt += r.integrity.corrupt;
    s.integrity.duplicate += r.integrity.duplicate;
    s.integrity.verified += r.integrity.verified;
    s.integrity.bad_events += r.integrity.bad_events;
    s.integrity.out_of_sync += r.integrity.out_of_sync;
    s.integrity.out_of_sync_events += r.integrity.out_of_sync_events;
    s.integrity.injected += r.integrity.injected;
    s.integrity.injected_detected += r.integrity.injected_detected;
    for (size_t k = 0; k < kCorruptRegions.size(); ++k) {
      s.integrity.injected_in[k] += r.integrity.injected_in[k];
      s.integrity.detected_in[k] += r.integrity.detected_in[k];
    }
    s.incomplete += r.integrity.incomplete;
    started += r.events_started;
    if (s.integrity_problem.empty() && !r.ring_overrun) s.integrity_problem = r.integrity_problem;
    latency.merge(r.latency);
    if (s.sample_bytes.size() < r.sample_bytes.size()) {
      s.sample_bytes.resize(r.sample_bytes.size(), 0);
      s.sample_events.resize(r.sample_bytes.size(), 0);
    }
    for (size_t k = 0; k < r.sample_bytes.size(); ++k) {
      s.sample_bytes[k] += r.sample_bytes[k];
      s.sample_events[k] += r.sample_events[k];
    }
  }
  // A lost rank's samples went with it: the EVM's (from the credits) keep
  // what its BU built before (the rate before a fault, next to after it).
  if (!s.lost_ranks.empty())
    for (const EventBuildingStats& r : ranks)
      if (r.evm && !r.evm_sample_bytes.empty()) {
        s.sample_bytes = r.evm_sample_bytes;
        s.sample_events = r.evm_sample_events;
        s.samples_from = "evm";
      }
  for (int bu = 0; bu < c.nodes; ++bu)
    if (excluded[bu] && !seen[bu] && bu < static_cast<int>(accepted.size()))
      s.events_built += accepted[bu];
  // Without an EVM the assignment is static: an `events:` run assigns every
  // id below `events`, a timed one what the BUs began.
  if (!c.with_evm) s.events_assigned = c.events ? meps_to_build(c) : started;
  const uint64_t accounted = s.events_built + s.integrity.bad_events +
                             s.integrity.out_of_sync_events + s.incomplete + s.incomplete_lost_peer;
  s.lost = s.events_assigned > accounted ? s.events_assigned - accounted : 0;
  s.duplicate_events = accounted > s.events_assigned ? accounted - s.events_assigned : 0;
  s.warmup_s = c.warmup_s;
  // An `events:` run may finish before its warm-up ends: an empty window
  // would read 0 Gb/s, so the whole run is measured instead (and said so).
  s.warmup_ignored = c.events && in_window == 0 && s.events_built > 0;
  if (s.warmup_ignored) {
    s.warmup_s = 0;
    s.in_window_per_bu = s.built_per_bu;  // the window is the whole run
  }
  s.window_s = c.events ? last * 1e-9 - s.warmup_s : c.duration_s - s.warmup_s;
  if (s.window_s > 0) {
    for (const EventBuildingStats& r : ranks) {
      if (r.bu < 0) continue;
      const uint64_t bytes = s.warmup_ignored ? r.bytes_total : r.bytes_in_window;
      s.per_node_gbps[r.bu] = bytes * 8.0 / s.window_s / 1e9;
      const uint64_t net = s.warmup_ignored ? r.network_bytes_total : r.network_bytes_in_window;
      s.network_per_node_gbps[r.bu] = net * 8.0 / s.window_s / 1e9;
      const uint64_t arrived = s.warmup_ignored ? r.arrival_bytes_total : r.arrival_bytes_in_window;
      s.arrivals.per_node[r.bu] = arrived * 8.0 / s.window_s / 1e9;
    }
    s.events_per_second = (s.warmup_ignored ? s.events_built : in_window) / s.window_s;
  }
  min_avg_max(s.per_node_gbps, s.min_gbps, s.avg_gbps, s.max_gbps);
  for (double g : s.per_node_gbps) s.aggregate_gbps += g;
  min_avg_max(s.network_per_node_gbps, s.network_min_gbps, s.network_avg_gbps, s.network_max_gbps);
  for (double g : s.network_per_node_gbps) s.network_aggregate_gbps += g;
  min_avg_max(s.arrivals.per_node, s.arrivals.min, s.arrivals.avg, s.arrivals.max);
  for (double g : s.arrivals.per_node) s.arrivals.aggregate += g;
  s.control_initial = ControlKnobs::at_start(c);
  s.phases = split_phases(phase_books, s.control, s.control_initial, s.warmup_s,
                          s.warmup_s + s.window_s, s.warmup_ignored, c.nodes);
  s.p50_ms = latency.quantile(0.5) * 1e-6;
  s.p99_ms = latency.quantile(0.99) * 1e-6;
  s.max_ms = latency.max() * 1e-6;
  s.cost = sum_cost(ranks, s.events_built);
}

// fragment.events = p > 1: what the protocol counted were MEPs; every event
// count becomes p x that (each MEP is p events, built or not together), the
// MEPs' own figures kept beside.
void count_events_of_meps(const Config& c, EventBuildingSummary& s) {
  const uint64_t p = c.fragment.events;
  s.packing_factor = p;
  s.meps_built = s.events_built;
  s.meps_assigned = s.events_assigned;
  s.meps_per_second = s.events_per_second;
  if (p == 1) return;
  for (uint64_t* n :
       {&s.events_built, &s.events_assigned, &s.incomplete, &s.lost, &s.duplicate_events,
        &s.incomplete_lost_peer, &s.masked_events, &s.integrity.bad_events,
        &s.integrity.out_of_sync_events, &s.fu_processed, &s.fu_accepted, &s.cost.events})
    *n *= p;
  for (uint64_t& n : s.masked_per_ru) n *= p;
  for (uint64_t& n : s.built_per_bu) n *= p;
  for (uint64_t& n : s.in_window_per_bu) n *= p;
  for (uint64_t& n : s.sample_events) n *= p;
  for (FailureRecord& f : s.failures) f.reassigned *= p;
  for (ControlPhase& ph : s.phases) {
    ph.events *= p;
    ph.event_rate *= static_cast<double>(p);
  }
  s.events_per_second *= static_cast<double>(p);
}

}  // namespace

EventLosses event_losses(const EventBuildingSummary& s) {
  return {.incomplete = s.incomplete,
          .lost = s.lost,
          .built_twice = s.duplicate_events,
          .ring_overruns = s.ring_overrun};
}

EventBounds event_bounds(const EventBuildingSummary& s) {
  return {.fu_processed = s.fu_processed,
          .fu_accepted = s.fu_accepted,
          .max_requests_in_flight = s.max_requests_in_flight,
          .max_events_in_flight = s.max_events_in_flight,
          .max_outstanding_per_bu = s.max_outstanding_per_bu,
          .ring_slots = s.ring_slots,
          .max_events_held = s.max_events_held,
          .assignments_held_back = s.assignments_held_back};
}

std::unique_ptr<Summary> EventBuildingReport::summarize(const Config& c, const Topology& t,
                                                        const std::vector<RankStats>& ranks,
                                                        bool) const {
  auto s = std::make_unique<EventBuildingSummary>();
  begin_summary(*s, t, ranks);
  summarize_event_building(c, own_parts<EventBuildingStats>(ranks), *s);
  finish_summary(*s, ranks);
  count_events_of_meps(c, *s);
  return s;
}

}  // namespace evb
