#pragma once
// The pieces of a report every protocol's report shares: the summary's
// start and end (lost ranks, poll modes, memory by rank), the table lines
// every run prints (rows per node, the network-only line, fault.corrupt's
// count), the integrity part of the verdict and of stderr, and the groups
// of results fields every run's JSON has (docs/METRICS.md; a protocol that
// does not fill a figure writes it as 0 or empty).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/json_writer.hpp"
#include "core/topology.hpp"
#include "protocols/api/run_summary.hpp"
#include "protocols/common/failure_record.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

// lo, avg and hi of `v` (all 0 when empty).
void min_avg_max(const std::vector<double>& v, double& lo, double& avg, double& hi);
// "64 KiB", "1 MiB", "1000 B": the largest unit that divides `bytes`.
std::string human_size(uint64_t bytes);

// A summary's start: the ranks that sent no statistics (Summary::ranks_lost,
// lost_ranks), which the protocol's figures may depend on.
void begin_summary(Summary& s, const Topology& topo, const std::vector<RankStats>& ranks);
// Its end: the poll mode(s) the ranks ran, their memory, hosts and CPUs, by rank.
void finish_summary(Summary& s, const std::vector<RankStats>& ranks);

// Table lines. "  <node> <Gb/s> <network Gb/s>" per node under a header
// naming the first rate column.
void print_per_node_rows(std::FILE* out, const Summary& s, const char* column);
// "# per-node figures include the node's own <own> ..." and the network-only line.
void print_network_lines(std::FILE* out, const Summary& s, const char* own);
// "# fault corrupt (p ...): injected ..., detected ..." (fault.corrupt set).
void print_corrupt_fault(std::FILE* out, const Config& c, const Summary& s);

// What only the event builders count of their events, in the shared
// stderr line and results.integrity (a micro-benchmark's stay 0): events
// reported incomplete, lost, built twice, and RU ring overruns.
struct EventLosses {
  uint64_t incomplete = 0;
  uint64_t lost = 0;
  uint64_t built_twice = 0;
  uint64_t ring_overruns = 0;
};

// The figures of results' shared group that one protocol family measures
// and the other writes as false, 0 or leaves out.
struct OwnFigures {
  bool warmup_ignored = false;                // event builders: the whole run measured
  bool headline_local_copy = false;           // micro-benchmarks: no byte crossed a network
  uint64_t fragments_in_place = 0;            // event builders: own fragments checked in the ring
  const NodeRates* arrivals = nullptr;        // event builders: bandwidth_gbps.arrivals
  double p50_ms = 0, p99_ms = 0, max_ms = 0;  // event builders' latency
};

// results.filter_units and results.bounds: the event builders' (a
// micro-benchmark writes 0).
struct EventBounds {
  uint64_t fu_processed = 0, fu_accepted = 0;
  int max_requests_in_flight = 0, max_events_in_flight = 0, max_outstanding_per_bu = 0;
  uint64_t ring_slots = 0, max_events_held = 0, assignments_held_back = 0;
};

// The integrity counters every protocol keeps hold: no fragment corrupt,
// duplicate or out of sync, no event completed with one, unless every
// corrupt fragment was an injected one (fault.corrupt) and every injected
// one was caught. A protocol's own rules may ask more (the event builders':
// protocols/event_building/event_building_status.hpp).
bool integrity_counters_ok(const IntegrityCounters& i);
// "integrity errors" when `ok` is false (the protocol's integrity verdict)
// (+ " (desync: ...)" when fragments were out of sync), or empty.
std::string integrity_failures(const Summary& s, bool ok);
// stderr: "integrity errors: 1 corrupt, ..." and "first problem: ..." when
// `ok` is false; empty otherwise.
std::vector<std::string> integrity_errors(const Summary& s, bool ok, const EventLosses& losses);

// results fields. lost_data_sources (`lost`: each RU lost under
// on_failure exclude) and assign_stopped_at_s (< 0, null: assignment did
// not stop early).
void write_loss_fields(JsonWriter& w, const std::vector<FailureRecord>& lost,
                       double assign_stopped_at_s);
// window_s .. fragments_in_place, bandwidth_gbps (with .network, and
// .arrivals when `own` has them) and latency_ms.
void write_figures(JsonWriter& w, const Summary& s, const OwnFigures& own);
// "per_node": {"min", "avg", "max"} (Gb/s) and "per_node_values" (by node).
void write_per_node(JsonWriter& w, double lo, double avg, double hi,
                    const std::vector<double>& values);
// Into the open integrity object: incomplete .. verified_fragments.
void write_integrity_counters(JsonWriter& w, const Summary& s, const EventLosses& losses);
// peak_rss_bytes, anon_huge_bytes, anon_rss_bytes (by rank) and lost_ranks.
void write_memory(JsonWriter& w, const Summary& s);
// Into the open faults array: fault.corrupt's entry (when set).
void write_corrupt_fault(JsonWriter& w, const Config& c, const Summary& s);
// filter_units and bounds.
void write_bounds(JsonWriter& w, const EventBounds& b);
// samples: one entry per report interval (bytes and events in each).
void write_samples(JsonWriter& w, const Config& c, const std::vector<uint64_t>& bytes,
                   const std::vector<uint64_t>& events);

}  // namespace evb
