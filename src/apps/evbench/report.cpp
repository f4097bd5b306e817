#include "apps/evbench/report.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "apps/evbench/topology_ring.hpp"
#include "apps/evbench/versions.hpp"
#include "core/clock.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "core/payload_memory.hpp"
#include "core/ring_geometry.hpp"
#include "protocols/common/fault_injector.hpp"
#include "protocols/common/recovery.hpp"
#include "protocols/common/report_masked.hpp"
#include "topo/platform_loader.hpp"
#include "topo/prediction_json.hpp"
#include "topo/shift_scan.hpp"

namespace evb {
namespace {

const char* const kSimulationNote =
    "simulated with SimGrid's fluid network model: no credit flow control and no head-of-line "
    "blocking, so figures with many simultaneous flows per link (random order, all-to-all) are "
    "upper bounds";

// " (ranks 3, 5)" for the lost-ranks line; empty when none.
std::string rank_list(const std::vector<int>& ranks) {
  std::string s;
  for (int r : ranks) s += (s.empty() ? "" : ", ") + std::to_string(r);
  if (s.empty()) return s;
  return (ranks.size() == 1 ? " (rank " : " (ranks ") + s + ")";
}

// A one-to-one shift scan's predicted rates from topology.platform, by
// shift (shifts[k - 1] is shift k), over the hosts the nodes ran on.
struct Predicted {
  topo::Platform platform;
  std::vector<topo::ShiftPrediction> shifts;
  const topo::ShiftPrediction* at(int shift) const {
    return shift >= 1 && shift <= static_cast<int>(shifts.size()) ? &shifts[shift - 1] : nullptr;
  }
};

std::optional<Predicted> predict(const Config& c) {
  if (!predicts_shift_scan(c) || c.nodes < 2) return std::nullopt;
  Predicted p;
  p.platform = topo::load_platform(c.topology.platform);
  p.shifts = topo::predict_shifts(p.platform, node_hosts(p.platform, c));
  return p;
}

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

void summarize_event_building(const Config& c, const std::vector<RankStats>& ranks, Summary& s) {
  int64_t last = 0;
  uint64_t in_window = 0;
  uint64_t started = 0;
  Histogram latency;
  s.per_node_gbps.assign(c.nodes, 0.0);
  s.network_per_node_gbps.assign(c.nodes, 0.0);
  // Under on_failure exclude the EVM's books count for an excluded BU: what
  // it reported built before it was taken out (later deliveries were
  // discarded), also when its rank was lost and sent no statistics.
  std::vector<uint64_t> accepted;
  std::vector<uint8_t> excluded(static_cast<size_t>(c.nodes), 0);
  s.ring_slots = min_ring_slots(c);
  s.nodes = c.nodes;
  for (const RankStats& r : ranks) {
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
    s.rate_bins = r.rate_bins;
    s.rate_bin_s = r.rate_bin_s;
    s.assign_stopped_at_s = r.assign_stopped_at_s;
    for (int bu : r.excluded_bus)
      if (bu >= 0 && bu < c.nodes) excluded[bu] = 1;
  }
  std::vector<uint8_t> seen(static_cast<size_t>(c.nodes), 0);
  for (const RankStats& r : ranks) {
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
    for (const RankStats& r : ranks)
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
  if (c.protocol == Protocol::pull_noevm) s.events_assigned = c.events ? c.events : started;
  const uint64_t accounted = s.events_built + s.integrity.bad_events +
                             s.integrity.out_of_sync_events + s.incomplete + s.incomplete_lost_peer;
  s.lost = s.events_assigned > accounted ? s.events_assigned - accounted : 0;
  s.duplicate_events = accounted > s.events_assigned ? accounted - s.events_assigned : 0;
  s.warmup_s = c.warmup_s;
  // An `events:` run may finish before its warm-up ends: an empty window
  // would read 0 Gb/s, so the whole run is measured instead (and said so).
  s.warmup_ignored = c.events && in_window == 0 && s.events_built > 0;
  if (s.warmup_ignored) s.warmup_s = 0;
  s.window_s = c.events ? last * 1e-9 - s.warmup_s : c.duration_s - s.warmup_s;
  if (s.window_s > 0) {
    for (const RankStats& r : ranks) {
      if (r.bu < 0) continue;
      const uint64_t bytes = s.warmup_ignored ? r.bytes_total : r.bytes_in_window;
      s.per_node_gbps[r.bu] = bytes * 8.0 / s.window_s / 1e9;
      const uint64_t net = s.warmup_ignored ? r.network_bytes_total : r.network_bytes_in_window;
      s.network_per_node_gbps[r.bu] = net * 8.0 / s.window_s / 1e9;
    }
    s.events_per_second = (s.warmup_ignored ? s.events_built : in_window) / s.window_s;
  }
  min_avg_max(s.per_node_gbps, s.min_gbps, s.avg_gbps, s.max_gbps);
  for (double g : s.per_node_gbps) s.aggregate_gbps += g;
  min_avg_max(s.network_per_node_gbps, s.network_min_gbps, s.network_avg_gbps, s.network_max_gbps);
  for (double g : s.network_per_node_gbps) s.network_aggregate_gbps += g;
  s.p50_ms = latency.quantile(0.5) * 1e-6;
  s.p99_ms = latency.quantile(0.99) * 1e-6;
  s.max_ms = latency.max() * 1e-6;
}

// A step's per-node Gb/s (all bytes, or those from other nodes' RUs) by BU.
std::vector<double> step_rates(const Config& c, const std::vector<RankStats>& ranks, size_t k,
                               bool network) {
  std::vector<double> per_node(c.nodes, 0.0);
  for (const RankStats& r : ranks) {
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
void summarize_microbench(const Config& c, const std::vector<RankStats>& ranks, bool simulated,
                          Summary& s) {
  size_t steps = 0;
  for (const RankStats& r : ranks) steps = std::max(steps, r.step_bytes.size());
  const bool scan = c.protocol == Protocol::one_to_one && c.shift_scan;
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
    Summary::Step st;
    st.shift = scan ? static_cast<int>(k) : c.shift;
    min_avg_max(per_node, st.min, st.avg, st.max);
    for (double g : per_node) st.aggregate += g;
    st.per_node = per_node;
    st.local_copy = c.protocol == Protocol::one_to_one && (c.nodes <= 1 || st.shift % c.nodes == 0);
    s.steps.push_back(st);
  }
  // The headline is a local copy only: one node, or one-to-one at shift 0.
  s.headline_local_copy =
      c.protocol == Protocol::one_to_one && (scan ? steps <= 1 : c.shift % c.nodes == 0);
  min_avg_max(s.per_node_gbps, s.min_gbps, s.avg_gbps, s.max_gbps);
  for (double g : s.per_node_gbps) s.aggregate_gbps += g;
  min_avg_max(s.network_per_node_gbps, s.network_min_gbps, s.network_avg_gbps, s.network_max_gbps);
  for (double g : s.network_per_node_gbps) s.network_aggregate_gbps += g;
  uint64_t head_messages = 0;
  for (const RankStats& r : ranks) {
    s.integrity.corrupt += r.integrity.corrupt;
    s.integrity.verified += r.integrity.verified;
    s.events_built += r.events_built;  // messages received
    if (r.bu >= 0 && r.step_window_s.size() > head_first)
      s.window_s = std::max(s.window_s, r.step_window_s[head_first]);
    for (size_t k = head_first; k < head_end && k < r.step_messages.size(); ++k)
      head_messages += r.step_messages[k];
  }
  if (s.self_shift_left_out) {  // what the summary shows: the steps kept, in their windows
    s.events_built = 0;
    for (const RankStats& r : ranks)
      for (size_t k = first; k < r.step_messages.size(); ++k) s.events_built += r.step_messages[k];
  }
  s.events_assigned = s.events_built;
  // Every step has its own warm-up (the alltoall loop: one).
  s.warmup_s = c.warmup_s;
  if (s.window_s > 0) s.events_per_second = head_messages / (s.window_s * s.headline_steps);
}

// What was lost: "RU 3 (rank 3) at 2.00 s, 12 events incomplete, assignment
// stopped at 2.01 s" (empty when no data source was lost).
std::string data_source_loss(const Summary& s) {
  if (!s.data_source_lost()) return "";
  std::string out;
  char buf[160];
  for (const FailureRecord& f : s.lost_data_sources()) {
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

// The table's last line: "OK", or what failed (integrity errors, a lost data
// source, or both). A run that masked RUs (on_ru_loss mask) is a degraded
// success: "OK, degraded: RU 2 (rank 2) masked at 2.00 s, 8123 events built
// without it".
std::string verdict(const Summary& s) {
  std::string out;
  if (!s.integrity_ok()) out = "integrity errors";
  if (s.integrity.out_of_sync)
    out += " (desync: " + std::to_string(s.integrity.out_of_sync) +
           " fragment(s) out of sync, their events not built)";
  if (s.data_source_lost())
    out += (out.empty() ? "" : "; ") + std::string("data source lost: ") + data_source_loss(s);
  const std::string masked = masked_summary(s);
  if (!out.empty()) return "FAILED: " + out + (masked.empty() ? "" : "; masked: " + masked);
  return masked.empty() ? "OK" : "OK, degraded: " + masked;
}

// The result table on stdout. `per_node` false (--quiet): no row per node
// (the JSON has them), the rest (headline, summary, integrity, verdict) stays.
void print_table(const Config& c, const Topology& t, const Summary& s, const std::string& variant,
                 const Predicted* predicted, bool per_node) {
  const bool builder = is_event_builder(c.protocol);
  if (builder) {
    std::printf("# evbench %s: %s over %s, %d nodes (%s), %s scheduling, %d processes\n",
                evbench_version().c_str(), to_string(c.protocol), variant.c_str(), c.nodes,
                to_string(c.layout), to_string(c.scheduling), t.nprocs);
    std::printf(
        "# credits %d, parallel %d, data path %s, poll mode %s, fragment %s %s, ru_buffer %s, "
        "window %.2f s (warm-up %.2f s excluded)\n",
        c.credits, c.parallel, to_string(c.data_path), s.poll_mode.c_str(),
        human_size(c.fragment.size).c_str(), to_string(c.fragment.distribution),
        human_size(c.ru_buffer).c_str(), s.window_s, s.warmup_s);
  } else {
    std::printf("# evbench %s: micro-benchmark %s over %s, %d nodes (%s), %d processes\n",
                evbench_version().c_str(), to_string(c.protocol), variant.c_str(), c.nodes,
                to_string(c.layout), t.nprocs);
    if (c.protocol == Protocol::alltoall)
      std::printf(
          "# message %s per rank pair, poll mode %s, window %.2f s (warm-up %.2f s excluded)\n",
          human_size(c.fragment.size).c_str(), s.poll_mode.c_str(), s.window_s, s.warmup_s);
    else
      std::printf(
          "# message %s, %d in flight per sender, data path %s, poll mode %s, ru_buffer %s, "
          "window %.2f s per step (warm-up %.2f s excluded from each)\n",
          human_size(c.fragment.size).c_str(), c.parallel, to_string(c.data_path),
          s.poll_mode.c_str(), human_size(c.ru_buffer).c_str(), s.window_s, s.warmup_s);
  }
  if (s.warmup_ignored)
    std::printf("# every event finished within the warm-up (%.2f s): the whole run is measured\n",
                c.warmup_s);
  if (!s.steps.empty() && c.shift_scan) {
    if (predicted)
      std::printf("#\n# %5s %12s %12s %12s %14s %14s %9s  %s\n", "shift", "min Gb/s", "avg Gb/s",
                  "max Gb/s", "aggregate Gb/s", "predicted avg", "max_flows", "worst links");
    else
      std::printf("#\n# %5s %12s %12s %12s %14s\n", "shift", "min Gb/s", "avg Gb/s", "max Gb/s",
                  "aggregate Gb/s");
    for (const auto& st : s.steps) {
      std::printf("  %5d %12.3f %12.3f %12.3f %14.3f", st.shift, st.min, st.avg, st.max,
                  st.aggregate);
      if (const topo::ShiftPrediction* p = predicted ? predicted->at(st.shift) : nullptr) {
        double sum = 0;
        for (double g : p->per_node_gbps) sum += g;
        std::string links;
        for (int l : p->worst_links)
          links += (links.empty() ? "" : " ") + predicted->platform.link_name(l);
        std::printf(" %14.3f %9d  %s",
                    p->per_node_gbps.empty() ? 0.0 : sum / p->per_node_gbps.size(), p->max_flows,
                    links.empty() ? "-" : links.c_str());
      }
      std::printf("%s\n", st.local_copy && !s.headline_local_copy
                              ? "  # local copy, not in the headline"
                          : st.local_copy ? "  # local copy"
                                          : "");
    }
    if (predicted)
      std::printf(
          "# predicted from %s: each flow gets the smallest bandwidth/flows share of the "
          "links on its route\n",
          c.topology.platform.c_str());
    if (s.self_shift_left_out)
      std::printf(
          "# shift 0 (every node to itself) left out: the simulated platform has no route from "
          "a host to itself, so SMPI moves it at no cost\n");
    if (s.headline_steps > 1)
      std::printf("# headline below: the mean over the network shifts 1..%d\n", s.headline_steps);
  }
  if (s.headline_local_copy)
    std::printf("# headline is a local copy (every node to itself): no byte crossed a network\n");
  if (per_node) {
    std::printf("#\n# %4s %14s %16s\n", "node", builder ? "BU Gb/s" : "recv Gb/s", "network Gb/s");
    for (size_t n = 0; n < s.per_node_gbps.size(); ++n)
      std::printf("  %4zu %14.3f %16.3f\n", n, s.per_node_gbps[n],
                  n < s.network_per_node_gbps.size() ? s.network_per_node_gbps[n] : 0.0);
  }
  if (builder) {
    std::printf("#\n# %12s %12s %12s %14s %12s %10s %10s %10s\n", "min Gb/s", "avg Gb/s",
                "max Gb/s", "aggregate Gb/s", "events/s", "p50 ms", "p99 ms", "max ms");
    std::printf("  %12.3f %12.3f %12.3f %14.3f %12.1f %10.3f %10.3f %10.3f\n", s.min_gbps,
                s.avg_gbps, s.max_gbps, s.aggregate_gbps, s.events_per_second, s.p50_ms, s.p99_ms,
                s.max_ms);
  } else {
    std::printf("#\n# %12s %12s %12s %14s %12s\n", "min Gb/s", "avg Gb/s", "max Gb/s",
                "aggregate Gb/s", "messages/s");
    std::printf("  %12.3f %12.3f %12.3f %14.3f %12.1f\n", s.min_gbps, s.avg_gbps, s.max_gbps,
                s.aggregate_gbps, s.events_per_second);
  }
  std::printf("# per-node figures include the node's own %s (never on a network)\n",
              builder ? "fragment" : "messages");
  std::printf(
      "# network only (own fragment excluded): per node min %.3f avg %.3f max %.3f, aggregate "
      "%.3f Gb/s\n",
      s.network_min_gbps, s.network_avg_gbps, s.network_max_gbps, s.network_aggregate_gbps);
  if (builder)
    std::printf(
        "#\n# events built %llu of %llu assigned; incomplete %llu, lost %llu, built twice %llu,"
        " duplicate %llu, corrupt %llu (%llu fragments checksummed)\n",
        static_cast<unsigned long long>(s.events_built),
        static_cast<unsigned long long>(s.events_assigned),
        static_cast<unsigned long long>(s.incomplete), static_cast<unsigned long long>(s.lost),
        static_cast<unsigned long long>(s.duplicate_events),
        static_cast<unsigned long long>(s.integrity.duplicate),
        static_cast<unsigned long long>(s.integrity.corrupt),
        static_cast<unsigned long long>(s.integrity.verified));
  else
    std::printf("#\n# messages received %llu (whole run); corrupt %llu\n",
                static_cast<unsigned long long>(s.events_built),
                static_cast<unsigned long long>(s.integrity.corrupt));
  if (is_event_builder(c.protocol) && !payload_checks(c))
    std::printf("# payload checks off (verify.payload %s): headers checked, payloads not\n",
                to_string(c.verify_payload));
  if (is_event_builder(c.protocol))
    std::printf("# filter units: %llu events processed, %llu accepted\n",
                static_cast<unsigned long long>(s.fu_processed),
                static_cast<unsigned long long>(s.fu_accepted));
  if (c.corrupt_probability > 0)
    std::printf(
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
  for (const FailureRecord& f : s.failures) {
    if (f.action == "masked") {  // "# RU 2 (rank 2) lost at 2.00 s: masked; 8123 events ..."
      std::printf("# %s (rank %d) lost at %.2f s, detected after %.2f s: masked%s", f.unit.c_str(),
                  f.rank, f.lost_at_s, f.detected_at_s - f.lost_at_s, masked_line(s, f).c_str());
      std::fputs(recovery_text(recovery_after(s, f.lost_at_s, f.detected_at_s)).c_str(), stdout);
      continue;
    }
    std::printf("# %s (rank %d) %s %.2f s, detected after %.2f s, %llu events reassigned",
                f.unit.c_str(), f.rank,
                f.cause == "silent"        ? "silent since"
                : f.cause == "out of sync" ? "out of sync at"
                                           : "lost at",
                f.lost_at_s, f.detected_at_s - f.lost_at_s,
                static_cast<unsigned long long>(f.reassigned));
    if (f.unit.rfind("BU", 0) != 0) {
      std::printf("\n");
      continue;
    }
    if (f.recovered_at_s >= 0)
      std::printf(" (built in %.3f s)", f.recovered_at_s - f.detected_at_s);
    else
      std::printf(" (not all built)");
    std::fputs(recovery_text(recovery_after(s, f.lost_at_s, f.detected_at_s)).c_str(), stdout);
  }
  for (const FaultSpec& f : c.faults) {
    if (f.kind != FaultSpec::Kind::stall && f.kind != FaultSpec::Kind::delay) continue;
    std::printf("# %s %s at %.2f s for %.2f s", to_string(f.kind), f.unit.c_str(), f.at_s, f.for_s);
    std::fputs(recovery_text(recovery_after(s, f.at_s, f.at_s + f.for_s)).c_str(), stdout);
  }
  if (!s.failures.empty() || s.late_discarded || s.incomplete_lost_peer)
    std::printf(
        "# on_failure %s: %d rank(s) lost%s, %llu late deliveries discarded, %llu events "
        "incomplete for lack of a lost RU\n",
        to_string(c.on_failure), s.ranks_lost, rank_list(s.lost_ranks).c_str(),
        static_cast<unsigned long long>(s.late_discarded),
        static_cast<unsigned long long>(s.incomplete_lost_peer));
  if (c.on_ru_loss == OnRuLoss::mask && is_event_builder(c.protocol))
    std::printf("# on_ru_loss mask: %llu events built without a masked RU's fragment\n",
                static_cast<unsigned long long>(s.masked_events));
  if (is_event_builder(c.protocol) && c.on_failure == OnFailure::exclude)
    std::printf(
        "# RU rings keep fragments until built: at most %llu of %llu slots held, %llu overruns, "
        "%llu assignments held back for a release\n",
        static_cast<unsigned long long>(s.max_events_held),
        static_cast<unsigned long long>(s.ring_slots),
        static_cast<unsigned long long>(s.ring_overrun),
        static_cast<unsigned long long>(s.assignments_held_back));
  std::printf("# %s\n", verdict(s).c_str());
  std::fflush(stdout);
}

// "per_node": {"min": .., "avg": .., "max": ..} (Gb/s)
// and "per_node_values": [..] (Gb/s by node)
void per_node_fields(JsonWriter& w, double lo, double avg, double hi,
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

// The variant that ran, the same in the table and the JSON: what the driver
// said after connecting (with its data path), else its variant, else the
// configured driver.
std::string variant_name(const Config& c, const DriverProbe& probe) {
  if (!probe.run_variant.empty()) return probe.run_variant;
  return probe.variant.empty() ? c.driver : probe.variant;
}

// What a simulated run (`evbench sim`) adds to results: that it is one, the
// simulated time (the SMPI build's clock is the simulated one, starting at 0),
// the wall time the simulation took, and the fluid model's caveat.
void simulation_fields(JsonWriter& w, const RunOptions& o) {
  w.value("simulated", true);
  w.value("simulated_platform", o.simulated_platform);
  w.value("simulated_time_s", ns_to_s(now_ns()));
  w.value("wall_time_s",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - o.wall_start).count());
  w.value("simulation_note", kSimulationNote);
}

std::string results_json(const Config& c, const Topology& t, const Summary& s, const RunOptions& o,
                         const DriverProbe& probe, const Predicted* predicted) {
  JsonWriter w;
  w.begin_object();
  w.value("schema_version", 1);
  w.value("tool", "evbench");
  w.begin_array("argv");
  for (const auto& a : o.argv) w.value("", a);
  w.end_array();
  w.raw("config", to_json(c));
  w.begin_object("versions");
  w.value("evbench", evbench_version());
  w.value("git_sha", evbench_git_sha());
  w.value("compiler", compiler_version());
  w.begin_object("libraries");
  w.value("yaml-cpp", yaml_cpp_version());
  w.value(c.driver, probe.library_version);
  w.value("kernel", kernel_version());
  w.end_object();
  w.end_object();
  w.begin_object("topology");
  w.value("nodes", t.nodes);
  w.value("processes", t.nprocs);
  w.value("evm_rank", t.evm_rank);
  w.end_object();
  w.begin_object("results");
  w.value("status", s.status());
  // The RUs lost under on_failure exclude (status data_source_lost): each
  // with its rank and when it was lost; the events left incomplete for lack
  // of them are integrity.incomplete_lost_peer.
  w.begin_array("lost_data_sources");
  for (const FailureRecord& f : s.lost_data_sources()) {
    w.begin_object();
    w.value("unit", f.unit);
    w.value("rank", f.rank);
    w.value("lost_at_s", f.lost_at_s);
    w.value("detected_at_s", f.detected_at_s);
    w.end_object();
  }
  w.end_array();
  if (s.assign_stopped_at_s >= 0)
    w.value("assign_stopped_at_s", s.assign_stopped_at_s);
  else
    w.raw("assign_stopped_at_s", "null");
  if (!o.simulated_platform.empty()) simulation_fields(w, o);
  w.value("driver", probe.variant.empty() ? c.driver : probe.variant);
  w.value("variant", variant_name(c, probe));
  w.value("data_path", to_string(c.data_path));
  w.value("poll_mode", s.poll_mode);
  w.value("window_s", s.window_s);
  w.value("warmup_s", s.warmup_s);
  w.value("warmup_ignored", s.warmup_ignored);
  w.value("headline_local_copy", s.headline_local_copy);
  w.value("events_built", s.events_built);
  w.value("events_assigned", s.events_assigned);
  w.value("events_per_second", s.events_per_second);
  w.value("fragments_in_place", s.fragments_in_place);
  w.begin_object("bandwidth_gbps");
  per_node_fields(w, s.min_gbps, s.avg_gbps, s.max_gbps, s.per_node_gbps);
  w.value("aggregate", s.aggregate_gbps);
  // Bytes that crossed a driver: the node's own fragment (messages) left out.
  w.begin_object("network");
  per_node_fields(w, s.network_min_gbps, s.network_avg_gbps, s.network_max_gbps,
                  s.network_per_node_gbps);
  w.value("aggregate", s.network_aggregate_gbps);
  w.end_object();
  w.end_object();
  w.begin_object("latency_ms");
  w.value("p50", s.p50_ms);
  w.value("p99", s.p99_ms);
  w.value("max", s.max_ms);
  w.end_object();
  w.begin_object("integrity");
  w.value("incomplete", s.incomplete);
  w.value("lost", s.lost);
  w.value("duplicate_events", s.duplicate_events);
  w.value("duplicate", s.integrity.duplicate);
  w.value("corrupt", s.integrity.corrupt);
  w.value("corrupt_events", s.integrity.bad_events);
  w.value("out_of_sync", s.integrity.out_of_sync);
  w.value("out_of_sync_events", s.integrity.out_of_sync_events);
  w.value("verified_fragments", s.integrity.verified);
  // off: header checks only (verify.payload; `evbench sim` shares payloads).
  // Event builders only: the micro-benchmarks check no payload checksum (and
  // do not read verify.payload).
  if (is_event_builder(c.protocol))
    w.value("payload_checks", std::string(payload_checks(c) ? "on" : "off"));
  w.value("incomplete_lost_peer", s.incomplete_lost_peer);
  masked_events_json(w, s);  // on_ru_loss mask: built without a masked RU
  w.value("late_discarded", s.late_discarded);
  w.value("ring_overrun", s.ring_overrun);
  w.value("first_problem", s.integrity_problem);
  w.end_object();
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
  // One entry per configured fault (fault.corrupt so far).
  w.begin_array("faults");
  if (c.corrupt_probability > 0) {
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
  for (const FaultSpec& f : c.faults) {
    if (f.kind == FaultSpec::Kind::corrupt) continue;  // the entry above
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
    if (!lasting && is_event_builder(c.protocol))
      recovery_fields(w, recovery_after(s, f.at_s, f.at_s + f.for_s));
    w.end_object();
  }
  // What the EVM saw: each lost or excluded peer.
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
    if (f.unit.rfind("BU", 0) == 0) {
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
  w.end_array();
  w.begin_object("filter_units");
  w.value("events_processed", s.fu_processed);
  w.value("events_accepted", s.fu_accepted);
  w.end_object();
  w.begin_object("bounds");
  w.value("max_requests_in_flight_per_credit", s.max_requests_in_flight);
  w.value("max_events_in_flight_per_bu", s.max_events_in_flight);
  w.value("max_events_assigned_per_bu", s.max_outstanding_per_bu);
  w.value("ru_ring_slots", s.ring_slots);
  w.value("max_events_held_per_ru", s.max_events_held);
  w.value("assignments_held_back", s.assignments_held_back);
  w.end_object();
  if (is_event_builder(c.protocol)) w.value("samples_from", s.samples_from);
  w.begin_array("samples");
  for (size_t k = 0; k < s.sample_bytes.size(); ++k) {
    const double t_end = (k + 1) * c.report_interval_s;
    w.begin_object();
    w.value("t_s", t_end);
    w.value("warmup", t_end <= c.warmup_s);
    w.value("events_per_second", s.sample_events[k] / c.report_interval_s);
    w.value("aggregate_gbps", s.sample_bytes[k] * 8.0 / c.report_interval_s / 1e9);
    w.end_object();
  }
  w.end_array();
  if (s.self_shift_left_out) {
    w.begin_array("shifts_left_out");
    w.value("", 0);
    w.end_array();
  }
  if (!s.steps.empty()) {
    w.begin_array("shifts");
    for (const auto& st : s.steps) {
      w.begin_object();
      w.value("shift", st.shift);
      w.value("local_copy", st.local_copy);
      per_node_fields(w, st.min, st.avg, st.max, st.per_node);
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
  w.end_object();
  w.end_object();
  return w.str() + "\n";
}

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

Summary summarize(const Config& c, const Topology& t, const std::vector<RankStats>& ranks,
                  bool simulated) {
  Summary s;
  s.ranks_lost = t.nprocs - static_cast<int>(ranks.size());
  std::vector<uint8_t> present(static_cast<size_t>(t.nprocs), 0);
  for (const RankStats& r : ranks)
    if (r.rank >= 0 && r.rank < t.nprocs) present[static_cast<size_t>(r.rank)] = 1;
  for (int q = 0; q < t.nprocs; ++q)
    if (!present[static_cast<size_t>(q)]) s.lost_ranks.push_back(q);
  if (is_event_builder(c.protocol))
    summarize_event_building(c, ranks, s);
  else
    summarize_microbench(c, ranks, simulated, s);
  s.poll_mode = poll_modes(ranks);
  for (const RankStats& r : ranks) {
    s.peak_rss_bytes.push_back(r.peak_rss_bytes);
    s.anon_huge_bytes.push_back(r.anon_huge_bytes);
    s.anon_rss_bytes.push_back(r.anon_rss_bytes);
  }
  return s;
}

int report_run(const Config& c, const Topology& t, const std::vector<RankStats>& ranks,
               const RunOptions& o, const DriverProbe& probe) {
  const Summary s = summarize(c, t, ranks, !o.simulated_platform.empty());
  const std::optional<Predicted> predicted = predict(c);
  const Predicted* pred = predicted ? &*predicted : nullptr;
  print_table(c, t, s, variant_name(c, probe), pred, !o.quiet);
  if (!o.simulated_platform.empty()) {
    std::printf(
        "# simulated on %s: %.3f s simulated in %.1f s wall time\n# note: %s\n",
        o.simulated_platform.c_str(), ns_to_s(now_ns()),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - o.wall_start).count(),
        kSimulationNote);
    std::fflush(stdout);
  }
  if (!o.json_path.empty()) {
    const std::string tmp = o.json_path + ".tmp";
    {
      std::ofstream out(tmp);
      out << results_json(c, t, s, o, probe, pred);
      if (!out) throw Error("cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), o.json_path.c_str()) != 0)
      throw Error("cannot rename " + tmp + " to " + o.json_path);
  }
  if (!s.integrity_ok()) {
    std::fprintf(stderr,
                 "evbench: integrity errors: %llu corrupt, %llu out of sync, %llu duplicate, "
                 "%llu incomplete, %llu lost, %llu built twice, %llu ring overruns\n",
                 static_cast<unsigned long long>(s.integrity.corrupt),
                 static_cast<unsigned long long>(s.integrity.out_of_sync),
                 static_cast<unsigned long long>(s.integrity.duplicate),
                 static_cast<unsigned long long>(s.incomplete),
                 static_cast<unsigned long long>(s.lost),
                 static_cast<unsigned long long>(s.duplicate_events),
                 static_cast<unsigned long long>(s.ring_overrun));
    if (!s.integrity_problem.empty())
      std::fprintf(stderr, "evbench: first problem: %s\n", s.integrity_problem.c_str());
  }
  if (s.data_source_lost())
    std::fprintf(stderr, "evbench: data source lost: %s\n", data_source_loss(s).c_str());
  return s.integrity_ok() && !s.data_source_lost() ? kExitOk : kExitIntegrity;
}

}  // namespace evb
