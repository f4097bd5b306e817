#include "protocols/microbench/microbench_report.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "protocols/api/report_parts.hpp"
#include "protocols/api/shift_predictions.hpp"
#include "protocols/microbench/microbench_detail.hpp"
#include "protocols/microbench/microbench_stats_fields.hpp"
#include "protocols/microbench/microbench_summary.hpp"
#include "topo/prediction_json.hpp"

namespace evb {
namespace {

// A step's per-node Gb/s (all bytes, or those from other nodes' RUs) by BU.
std::vector<double> step_rates(const Config& c, const std::vector<MicrobenchStats>& ranks, size_t k,
                               bool network) {
  std::vector<double> per_node(c.nodes, 0.0);
  for (const MicrobenchStats& r : ranks) {
    if (r.bu < 0 || r.bu >= c.nodes || k >= r.step_bytes.size() || r.step_window_s[k] <= 0)
      continue;
    const uint64_t bytes = !network                          ? r.step_bytes[k]
                           : k < r.step_network_bytes.size() ? r.step_network_bytes[k]
                                                             : 0;
    per_node[r.bu] = bytes * 8.0 / r.step_window_s[k] / 1e9;
  }
  return per_node;
}

// The headline of a micro-benchmark: one step, or the mean over the network
// shifts 1..N-1 of a one-to-one scan (shift 0, a node to itself, is reported
// apart: docs/METRICS.md). Per node: the mean of its rates over those steps;
// aggregate: the mean of the steps' aggregates; events/s likewise.
void summarize_microbench(const Config& c, const std::vector<MicrobenchStats>& ranks,
                          bool simulated, MicrobenchSummary& s) {
  size_t steps = 0;
  for (const MicrobenchStats& r : ranks) steps = std::max(steps, r.step_bytes.size());
  const bool scan = micro::pattern_of(c) == micro::Pattern::one_to_one && c.shift_scan;
  s.self_shift_left_out = simulated && scan && steps > 1;
  const size_t first = s.self_shift_left_out ? 1 : 0;
  // Steps the headline averages: the network shifts of a scan, else the one step.
  const size_t head_first = scan && steps > 1 ? 1 : 0;
  const size_t head_end = scan && steps > 1 ? steps : std::min<size_t>(steps, 1);
  s.headline_steps = static_cast<int>(std::max<size_t>(1, head_end - head_first));
  s.per_node_gbps.assign(c.nodes, 0.0);
  s.network_per_node_gbps.assign(c.nodes, 0.0);
  for (size_t k = 0; k < steps; ++k) {
    const std::vector<double> per_node = step_rates(c, ranks, k, false);
    if (k >= head_first && k < head_end) {
      const std::vector<double> net = step_rates(c, ranks, k, true);
      for (int n = 0; n < c.nodes; ++n) {
        s.per_node_gbps[n] += per_node[n] / s.headline_steps;
        s.network_per_node_gbps[n] += net[n] / s.headline_steps;
      }
    }
    if (k < first) continue;
    MicrobenchSummary::Step st;
    st.shift = scan ? static_cast<int>(k) : c.shift;
    min_avg_max(per_node, st.min, st.avg, st.max);
    for (double g : per_node) st.aggregate += g;
    st.per_node = per_node;
    st.local_copy = micro::pattern_of(c) == micro::Pattern::one_to_one &&
                    (c.nodes <= 1 || st.shift % c.nodes == 0);
    s.steps.push_back(st);
  }
  // The headline is a local copy only: one node, or one-to-one at shift 0.
  s.headline_local_copy = micro::pattern_of(c) == micro::Pattern::one_to_one &&
                          (scan ? steps <= 1 : c.shift % c.nodes == 0);
  min_avg_max(s.per_node_gbps, s.min_gbps, s.avg_gbps, s.max_gbps);
  for (double g : s.per_node_gbps) s.aggregate_gbps += g;
  min_avg_max(s.network_per_node_gbps, s.network_min_gbps, s.network_avg_gbps, s.network_max_gbps);
  for (double g : s.network_per_node_gbps) s.network_aggregate_gbps += g;
  uint64_t head_messages = 0;
  for (const MicrobenchStats& r : ranks) {
    s.integrity.corrupt += r.integrity.corrupt;
    s.integrity.verified += r.integrity.verified;
    s.headers_checked += r.headers_checked;
    s.headers_unchecked += r.headers_unchecked;
    s.events_built += r.events_built;  // messages received
    if (r.bu >= 0 && r.step_window_s.size() > head_first)
      s.window_s = std::max(s.window_s, r.step_window_s[head_first]);
    for (size_t k = head_first; k < head_end && k < r.step_messages.size(); ++k)
      head_messages += r.step_messages[k];
  }
  if (s.self_shift_left_out) {  // what the summary shows: the steps kept, in their windows
    s.events_built = 0;
    for (const MicrobenchStats& r : ranks)
      for (size_t k = first; k < r.step_messages.size(); ++k) s.events_built += r.step_messages[k];
  }
  s.events_assigned = s.events_built;
  // Every step has its own warm-up (the alltoall loop: one).
  s.warmup_s = c.warmup_s;
  if (s.window_s > 0) s.events_per_second = head_messages / (s.window_s * s.headline_steps);
}

// A shift scan's table: one row per shift, with the predicted rates
// (topology.platform) when there are some, and what the headline averages.
void print_steps(std::FILE* out, const Config& c, const MicrobenchSummary& s,
                 const ShiftPredictions* predicted) {
  if (predicted)
    std::fprintf(out, "#\n# %5s %12s %12s %12s %14s %14s %9s  %s\n", "shift", "min Gb/s",
                 "avg Gb/s", "max Gb/s", "aggregate Gb/s", "predicted avg", "max_flows",
                 "worst links");
  else
    std::fprintf(out, "#\n# %5s %12s %12s %12s %14s\n", "shift", "min Gb/s", "avg Gb/s", "max Gb/s",
                 "aggregate Gb/s");
  for (const auto& st : s.steps) {
    std::fprintf(out, "  %5d %12.3f %12.3f %12.3f %14.3f", st.shift, st.min, st.avg, st.max,
                 st.aggregate);
    if (const topo::ShiftPrediction* p = predicted ? predicted->at(st.shift) : nullptr) {
      double sum = 0;
      for (double g : p->per_node_gbps) sum += g;
      std::string links;
      for (int l : p->worst_links)
        links += (links.empty() ? "" : " ") + predicted->platform.link_name(l);
      std::fprintf(out, " %14.3f %9d  %s",
                   p->per_node_gbps.empty() ? 0.0 : sum / p->per_node_gbps.size(), p->max_flows,
                   links.empty() ? "-" : links.c_str());
    }
    std::fprintf(out, "%s\n",
                 st.local_copy && !s.headline_local_copy ? "  # local copy, not in the headline"
                 : st.local_copy                         ? "  # local copy"
                                                         : "");
  }
  if (predicted)
    std::fprintf(out,
                 "# predicted from %s: each flow gets the smallest bandwidth/flows share of the "
                 "links on its route\n",
                 c.topology.platform.c_str());
  if (s.self_shift_left_out)
    std::fprintf(out,
                 "# shift 0 (every node to itself) left out: the simulated platform has no route "
                 "from a host to itself, so a simulation moves it at no cost\n");
  if (s.headline_steps > 1)
    std::fprintf(out, "# headline below: the mean over the network shifts 1..%d\n",
                 s.headline_steps);
}

// The receive slots for the settings line: as set, or unset (the window and
// half of it more), and how many freed slots go back per credit when more
// than one.
std::string receive_slots_text(const Config& c) {
  std::string text =
      c.receive_slots > 0 ? ", receive_slots " + std::to_string(c.receive_slots)
      : micro::one_slot_by_path(c)
          ? std::string(", receive slots 1 (receive_slots unset: one at parallel 1 ") +
                (c.shared_memory_path ? "over shared memory)" : "for sends by read rendezvous)")
          : ", receive slots " + std::to_string(micro::receive_slots_of(c)) +
                " (receive_slots unset: parallel + " +
                std::to_string(micro::default_extra_credits(c)) + ")";
  const uint32_t batch = micro::credit_batch_of(c);
  if (batch > 1) text += ", a credit per " + std::to_string(batch) + " freed slots";
  return text;
}

// Which checks ran, once `receive_slots` is set or one slot was chosen by
// the path (a run with the window's default checks every message's length
// and header, as always, and says nothing more).
void print_checks(std::FILE* out, const Config& c, const MicrobenchSummary& s) {
  std::fprintf(out, "# checks: length of every message; header of %llu, not of %llu",
               static_cast<unsigned long long>(s.headers_checked),
               static_cast<unsigned long long>(s.headers_unchecked));
  if (micro::shares_slots(c))
    std::fprintf(out,
                 " (receive_slots %d < parallel %d: a header is checked only when no other "
                 "message was in flight into its slot)",
                 c.receive_slots, c.parallel);
  std::fprintf(out, "\n");
}

void write_checks(JsonWriter& w, const Config& c, const MicrobenchSummary& s) {
  w.begin_object("checks");
  w.value("receive_slots", static_cast<uint64_t>(micro::receive_slots_of(c)));
  // Why that many: the key, or unset and one at parallel 1 by the path
  // (shared memory, read rendezvous).
  w.value("receive_slots_by", c.receive_slots > 0 ? "key" : micro::one_slot_reason(c));
  w.value("in_flight", static_cast<uint64_t>(std::max(1, c.parallel)));
  w.value("length", s.headers_checked + s.headers_unchecked);
  w.value("header", s.headers_checked);
  w.value("header_unchecked", s.headers_unchecked);
  w.end_object();
}

}  // namespace

std::unique_ptr<Summary> MicrobenchReport::summarize(const Config& c, const Topology& t,
                                                     const std::vector<RankStats>& ranks,
                                                     bool simulated) const {
  auto s = std::make_unique<MicrobenchSummary>();
  begin_summary(*s, t, ranks);
  summarize_microbench(c, own_parts<MicrobenchStats>(ranks), simulated, *s);
  finish_summary(*s, ranks);
  return s;
}

std::string MicrobenchReport::title(const Config& c) const {
  return "micro-benchmark " + c.protocol;
}

std::string MicrobenchReport::shape(const Config&) const {
  return "";
}

void MicrobenchReport::print_settings(std::FILE* out, const Config& c, const Summary& s) const {
  if (micro::pattern_of(c) == micro::Pattern::alltoall)
    std::fprintf(
        out, "# message %s per rank pair, poll mode %s, window %.2f s (warm-up %.2f s excluded)\n",
        human_size(c.fragment.size).c_str(), s.poll_mode.c_str(), s.window_s, s.warmup_s);
  else
    std::fprintf(out,
                 "# message %s, %d in flight per sender, data path %s, poll mode %s, ru_buffer "
                 "%s%s, window %.2f s per step (warm-up %.2f s excluded from each)\n",
                 human_size(c.fragment.size).c_str(), c.parallel, to_string(c.data_path),
                 s.poll_mode.c_str(), human_size(c.ru_buffer).c_str(),
                 receive_slots_text(c).c_str(), s.window_s, s.warmup_s);
}

void MicrobenchReport::print_body(std::FILE* out, const Config& c, const Summary& summary,
                                  const ReportContext& context) const {
  const auto& s = summary_as<MicrobenchSummary>(summary);
  if (!s.steps.empty() && c.shift_scan) print_steps(out, c, s, context.predicted);
  if (s.headline_local_copy)
    std::fprintf(out,
                 "# headline is a local copy (every node to itself): no byte crossed a network\n");
  if (context.per_node) print_per_node_rows(out, s, "recv Gb/s");
  std::fprintf(out, "#\n# %12s %12s %12s %14s %12s\n", "min Gb/s", "avg Gb/s", "max Gb/s",
               "aggregate Gb/s", "messages/s");
  std::fprintf(out, "  %12.3f %12.3f %12.3f %14.3f %12.1f\n", s.min_gbps, s.avg_gbps, s.max_gbps,
               s.aggregate_gbps, s.events_per_second);
  print_network_lines(out, s, "messages");
  std::fprintf(out, "#\n# messages received %llu (whole run); corrupt %llu\n",
               static_cast<unsigned long long>(s.events_built),
               static_cast<unsigned long long>(s.integrity.corrupt));
  if (c.receive_slots > 0) print_checks(out, c, s);
  print_corrupt_fault(out, c, s);
}

Verdict MicrobenchReport::verdict(const Summary& s) const {
  return {integrity_failures(s, integrity_counters_ok(s.integrity)), {}, {}};
}

std::vector<std::string> MicrobenchReport::errors(const Summary& s) const {
  return integrity_errors(s, integrity_counters_ok(s.integrity), {});
}

int MicrobenchReport::exit_code(const Summary& s) const {
  return integrity_counters_ok(s.integrity) ? kExitOk : kExitIntegrity;
}

const char* MicrobenchReport::status(const Summary& s) const {
  return integrity_counters_ok(s.integrity) ? "ok" : "integrity_error";
}

// The results schema is the same for every protocol (docs/METRICS.md): what
// a micro-benchmark does not measure (lost data sources, latency, the
// event builders' losses, masked RUs, bounds, samples) is written empty or 0.
void MicrobenchReport::status_fields(JsonWriter& w, const Summary&) const {
  write_loss_fields(w, {}, -1);
}

void MicrobenchReport::results_fields(JsonWriter& w, const Config& c, const Topology&,
                                      const Summary& summary, const ReportContext& context) const {
  const auto& s = summary_as<MicrobenchSummary>(summary);
  OwnFigures own;
  own.headline_local_copy = s.headline_local_copy;
  write_figures(w, s, own);
  w.begin_object("integrity");
  write_integrity_counters(w, s, {});
  constexpr uint64_t kNone = 0;  // the event builders' four loss counts
  w.value("incomplete_lost_peer", kNone);
  w.begin_object("masked_events");
  w.value("count", kNone);
  w.begin_array("sources");
  w.end_array();
  w.end_object();
  w.value("late_discarded", kNone);
  w.value("ring_overrun", kNone);
  w.value("first_problem", s.integrity_problem);
  if (c.receive_slots > 0 || micro::one_slot_by_path(c)) write_checks(w, c, s);
  w.end_object();
  write_memory(w, s);
  w.begin_array("faults");  // a micro-benchmark takes fault.corrupt only
  write_corrupt_fault(w, c, s);
  w.end_array();
  write_bounds(w, {});
  write_samples(w, c, {}, {});
  if (s.self_shift_left_out) {
    w.begin_array("shifts_left_out");
    w.value("", 0);
    w.end_array();
  }
  if (s.steps.empty()) return;
  const ShiftPredictions* predicted = context.predicted;
  w.begin_array("shifts");
  for (const auto& st : s.steps) {
    w.begin_object();
    w.value("shift", st.shift);
    w.value("local_copy", st.local_copy);
    write_per_node(w, st.min, st.avg, st.max, st.per_node);
    w.value("aggregate", st.aggregate);
    if (const topo::ShiftPrediction* p = predicted ? predicted->at(st.shift) : nullptr) {
      w.begin_object("predicted");
      topo::write_prediction_fields(w, predicted->platform, *p);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
}

}  // namespace evb
