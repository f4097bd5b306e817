#include "protocols/api/report_parts.hpp"

#include <algorithm>
#include <cstdio>

#include "units/builder_unit.hpp"

namespace evb {
namespace {

// The poll mode every rank ran, or the ranks' modes in rank order joined by
// "," when they differ (hosts with different core counts).
std::string poll_modes(const std::vector<RankStats>& ranks) {
  std::string all;
  bool same = true;
  for (const RankStats& r : ranks) {
    same = same && r.poll_mode == ranks.front().poll_mode;
    all += (all.empty() ? "" : ",") + r.poll_mode;
  }
  return ranks.empty() ? "" : same ? ranks.front().poll_mode : all;
}

}  // namespace

void min_avg_max(const std::vector<double>& v, double& lo, double& avg, double& hi) {
  lo = avg = hi = 0;
  if (v.empty()) return;
  lo = *std::min_element(v.begin(), v.end());
  hi = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  avg = sum / v.size();
}

std::string human_size(uint64_t b) {
  char buf[64];
  if (b >= (1ull << 30) && b % (1ull << 30) == 0)
    std::snprintf(buf, sizeof buf, "%llu GiB", static_cast<unsigned long long>(b >> 30));
  else if (b >= (1ull << 20) && b % (1ull << 20) == 0)
    std::snprintf(buf, sizeof buf, "%llu MiB", static_cast<unsigned long long>(b >> 20));
  else if (b >= 1024 && b % 1024 == 0)
    std::snprintf(buf, sizeof buf, "%llu KiB", static_cast<unsigned long long>(b >> 10));
  else
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  return buf;
}

void begin_summary(Summary& s, const Topology& t, const std::vector<RankStats>& ranks) {
  s.ranks_lost = t.nprocs - static_cast<int>(ranks.size());
  std::vector<uint8_t> present(static_cast<size_t>(t.nprocs), 0);
  for (const RankStats& r : ranks)
    if (r.rank >= 0 && r.rank < t.nprocs) present[static_cast<size_t>(r.rank)] = 1;
  for (int q = 0; q < t.nprocs; ++q)
    if (!present[static_cast<size_t>(q)]) s.lost_ranks.push_back(q);
}

void finish_summary(Summary& s, const std::vector<RankStats>& ranks) {
  s.poll_mode = poll_modes(ranks);
  for (const RankStats& r : ranks) {
    s.peak_rss_bytes.push_back(r.peak_rss_bytes);
    s.anon_huge_bytes.push_back(r.anon_huge_bytes);
    s.anon_rss_bytes.push_back(r.anon_rss_bytes);
    s.placed.push_back({r.rank, r.host, r.cpus});
  }
}

void print_per_node_rows(std::FILE* out, const Summary& s, const char* column) {
  std::fprintf(out, "#\n# %4s %14s %16s\n", "node", column, "network Gb/s");
  for (size_t n = 0; n < s.per_node_gbps.size(); ++n)
    std::fprintf(out, "  %4zu %14.3f %16.3f\n", n, s.per_node_gbps[n],
                 n < s.network_per_node_gbps.size() ? s.network_per_node_gbps[n] : 0.0);
}

void print_network_lines(std::FILE* out, const Summary& s, const char* own) {
  std::fprintf(out, "# per-node figures include the node's own %s (never on a network)\n", own);
  std::fprintf(
      out,
      "# network only (own fragment excluded): per node min %.3f avg %.3f max %.3f, aggregate "
      "%.3f Gb/s\n",
      s.network_min_gbps, s.network_avg_gbps, s.network_max_gbps, s.network_aggregate_gbps);
}

void print_corrupt_fault(std::FILE* out, const Config& c, const Summary& s) {
  if (c.corrupt_probability <= 0) return;
  std::fprintf(out,
               "# fault corrupt (p %g): injected %llu, detected %llu (header %llu/%llu, metadata "
               "%llu/%llu, payload %llu/%llu)\n",
               c.corrupt_probability, static_cast<unsigned long long>(s.integrity.injected),
               static_cast<unsigned long long>(s.integrity.injected_detected),
               static_cast<unsigned long long>(s.integrity.injected_in[0]),
               static_cast<unsigned long long>(s.integrity.detected_in[0]),
               static_cast<unsigned long long>(s.integrity.injected_in[1]),
               static_cast<unsigned long long>(s.integrity.detected_in[1]),
               static_cast<unsigned long long>(s.integrity.injected_in[2]),
               static_cast<unsigned long long>(s.integrity.detected_in[2]));
}

bool integrity_counters_ok(const IntegrityCounters& i) {
  const bool injected_all_caught = i.injected == i.injected_detected;
  const bool expected_corruption = i.injected > 0 && injected_all_caught && i.corrupt == i.injected;
  return (i.corrupt == 0 || expected_corruption) && injected_all_caught &&
         (i.bad_events == 0 || expected_corruption) && i.duplicate == 0 && i.out_of_sync == 0 &&
         i.out_of_sync_events == 0;
}

std::string integrity_failures(const Summary& s, bool ok) {
  std::string out;
  if (!ok) out = "integrity errors";
  if (s.integrity.out_of_sync)
    out += " (desync: " + std::to_string(s.integrity.out_of_sync) +
           " fragment(s) out of sync, their events not built)";
  return out;
}

std::vector<std::string> integrity_errors(const Summary& s, bool ok, const EventLosses& losses) {
  if (ok) return {};
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "integrity errors: %llu corrupt, %llu out of sync, %llu duplicate, "
                "%llu incomplete, %llu lost, %llu built twice, %llu ring overruns",
                static_cast<unsigned long long>(s.integrity.corrupt),
                static_cast<unsigned long long>(s.integrity.out_of_sync),
                static_cast<unsigned long long>(s.integrity.duplicate),
                static_cast<unsigned long long>(losses.incomplete),
                static_cast<unsigned long long>(losses.lost),
                static_cast<unsigned long long>(losses.built_twice),
                static_cast<unsigned long long>(losses.ring_overruns));
  std::vector<std::string> out{buf};
  if (!s.integrity_problem.empty()) out.push_back("first problem: " + s.integrity_problem);
  return out;
}

void write_loss_fields(JsonWriter& w, const std::vector<FailureRecord>& lost,
                       double assign_stopped_at_s) {
  // The RUs lost under on_failure exclude (status data_source_lost): each
  // with its rank and when it was lost; the events left incomplete for lack
  // of them are integrity.incomplete_lost_peer.
  w.begin_array("lost_data_sources");
  for (const FailureRecord& f : lost) {
    w.begin_object();
    w.value("unit", f.unit);
    w.value("rank", f.rank);
    w.value("lost_at_s", f.lost_at_s);
    w.value("detected_at_s", f.detected_at_s);
    w.end_object();
  }
  w.end_array();
  if (assign_stopped_at_s >= 0)
    w.value("assign_stopped_at_s", assign_stopped_at_s);
  else
    w.raw("assign_stopped_at_s", "null");
}

void write_per_node(JsonWriter& w, double lo, double avg, double hi,
                    const std::vector<double>& values) {
  w.begin_object("per_node");
  w.value("min", lo);
  w.value("avg", avg);
  w.value("max", hi);
  w.end_object();
  w.begin_array("per_node_values");
  for (double g : values) w.value("", g);
  w.end_array();
}

void write_figures(JsonWriter& w, const Summary& s, const OwnFigures& own) {
  w.value("window_s", s.window_s);
  w.value("warmup_s", s.warmup_s);
  w.value("warmup_ignored", own.warmup_ignored);
  w.value("headline_local_copy", own.headline_local_copy);
  w.value("events_built", s.events_built);
  w.value("events_assigned", s.events_assigned);
  w.value("events_per_second", s.events_per_second);
  w.value("fragments_in_place", own.fragments_in_place);
  w.begin_object("bandwidth_gbps");
  write_per_node(w, s.min_gbps, s.avg_gbps, s.max_gbps, s.per_node_gbps);
  w.value("aggregate", s.aggregate_gbps);
  // Bytes that crossed a driver: the node's own fragment (messages) left out.
  w.begin_object("network");
  write_per_node(w, s.network_min_gbps, s.network_avg_gbps, s.network_max_gbps,
                 s.network_per_node_gbps);
  w.value("aggregate", s.network_aggregate_gbps);
  w.end_object();
  // Event builders: fragment bytes as they arrived in the window.
  if (own.arrivals && !own.arrivals->per_node.empty()) {
    const NodeRates& a = *own.arrivals;
    w.begin_object("arrivals");
    write_per_node(w, a.min, a.avg, a.max, a.per_node);
    w.value("aggregate", a.aggregate);
    w.end_object();
  }
  w.end_object();
  w.begin_object("latency_ms");
  w.value("p50", own.p50_ms);
  w.value("p99", own.p99_ms);
  w.value("max", own.max_ms);
  w.end_object();
}

void write_integrity_counters(JsonWriter& w, const Summary& s, const EventLosses& losses) {
  w.value("incomplete", losses.incomplete);
  w.value("lost", losses.lost);
  w.value("duplicate_events", losses.built_twice);
  w.value("duplicate", s.integrity.duplicate);
  w.value("corrupt", s.integrity.corrupt);
  w.value("corrupt_events", s.integrity.bad_events);
  w.value("out_of_sync", s.integrity.out_of_sync);
  w.value("out_of_sync_events", s.integrity.out_of_sync_events);
  w.value("verified_fragments", s.integrity.verified);
}

void write_memory(JsonWriter& w, const Summary& s) {
  w.begin_array("peak_rss_bytes");  // by rank
  for (uint64_t b : s.peak_rss_bytes) w.value("", b);
  w.end_array();
  w.begin_array("anon_huge_bytes");  // by rank, while its buffers were in use
  for (uint64_t b : s.anon_huge_bytes) w.value("", b);
  w.end_array();
  // by rank, at the same moment: resident anonymous memory (RssAnon), which
  // unlike peak_rss_bytes leaves out file pages mapped many times over
  // (`evbench sim`'s shared payloads)
  w.begin_array("anon_rss_bytes");
  for (uint64_t b : s.anon_rss_bytes) w.value("", b);
  w.end_array();
  // Ranks that contributed no statistics (lost under on_failure exclude).
  w.begin_array("lost_ranks");
  for (int r : s.lost_ranks) w.value("", r);
  w.end_array();
}

void write_corrupt_fault(JsonWriter& w, const Config& c, const Summary& s) {
  if (c.corrupt_probability <= 0) return;
  w.begin_object();
  w.value("kind", "corrupt");
  w.value("probability", c.corrupt_probability);
  w.value("injected", s.integrity.injected);
  w.value("detected", s.integrity.injected_detected);
  w.value("undetected", s.integrity.injected - s.integrity.injected_detected);
  for (size_t k = 0; k < kCorruptRegions.size(); ++k) {
    w.begin_object(kCorruptRegions[k]);
    w.value("injected", s.integrity.injected_in[k]);
    w.value("detected", s.integrity.detected_in[k]);
    w.value("undetected", s.integrity.injected_in[k] - s.integrity.detected_in[k]);
    w.end_object();
  }
  w.end_object();
}

void write_bounds(JsonWriter& w, const EventBounds& b) {
  w.begin_object("filter_units");
  w.value("events_processed", b.fu_processed);
  w.value("events_accepted", b.fu_accepted);
  w.end_object();
  w.begin_object("bounds");
  w.value("max_requests_in_flight_per_credit", b.max_requests_in_flight);
  w.value("max_events_in_flight_per_bu", b.max_events_in_flight);
  w.value("max_events_assigned_per_bu", b.max_outstanding_per_bu);
  w.value("ru_ring_slots", b.ring_slots);
  w.value("max_events_held_per_ru", b.max_events_held);
  w.value("assignments_held_back", b.assignments_held_back);
  w.end_object();
}

void write_samples(JsonWriter& w, const Config& c, const std::vector<uint64_t>& bytes,
                   const std::vector<uint64_t>& events) {
  w.begin_array("samples");
  for (size_t k = 0; k < bytes.size(); ++k) {
    const double t_end = (k + 1) * c.report_interval_s;
    w.begin_object();
    w.value("t_s", t_end);
    w.value("warmup", t_end <= c.warmup_s);
    w.value("events_per_second", events[k] / c.report_interval_s);
    w.value("aggregate_gbps", bytes[k] * 8.0 / c.report_interval_s / 1e9);
    w.end_object();
  }
  w.end_array();
}

}  // namespace evb
