#pragma once
// MonitorSnapshot: what the monitor shows of a running protocol at one
// report interval, today only the event builders' (EventBuilderView): the
// EVM's rank assembles it from its own view (events assigned and built,
// slots held, failures, control changes) and from the stats each BU and RU
// sends it every interval (protocols/monitor/monitor_hub.*
// assembles it from what monitor_reporter.* sends). Plain data: the engine
// thread publishes it (MonitorState::publish); the HTTP thread formats it
// (/metrics from the metric table, /api/state; both read it through
// figures.hpp) and never touches the engine.
#include <cstdint>
#include <string>
#include <vector>

namespace evb {

// One BU as last reported. Counters are totals since t0 (the start of the
// data phase, warm-up included); gauges are the value at the report. Its
// rate is measured by its own clock over the intervals it reported since
// the last snapshot (monitor/interval_rate.hpp), not between two snapshots.
struct MonitorBu {
  uint64_t bytes = 0;               // counter: payload bytes of fragments received
  uint64_t fragments = 0;           // counter: fragments received
  uint64_t events_built = 0;        // counter: events the EVM accepted as built from it
  uint32_t events_in_flight = 0;    // gauge: its slots holding an assigned event (credits in use)
  uint32_t requests_in_flight = 0;  // gauge: fragment requests outstanding (pull)
  uint32_t fu_queue = 0;            // gauge: built events waiting for a free FU (queue depth)
  double latency_p50_s = 0;         // event latency quantiles since t0 (0: none yet)
  double latency_p90_s = 0;
  double latency_p99_s = 0;
  uint64_t integrity_errors = 0;  // counter: corrupt, duplicate, out-of-sync fragments
  double rate_bytes_per_s = 0;    // bytes received per second over its last complete interval(s)
  double rate_interval_s = 0;     // the time of its clock that rate covers (0: none yet)
  bool rate_carried = false;      // no interval completed since the last snapshot: carried forward
  bool excluded = false;          // on_failure exclude took it out of the run
  bool reported = false;          // its stats reached the EVM at least once
};

// One RU as last reported (its rate as a BU's, by its own clock).
struct MonitorRu {
  uint64_t bytes = 0;      // counter: payload bytes of fragments sent
  uint64_t fragments = 0;  // counter: fragments sent
  double rate_bytes_per_s = 0;
  double rate_interval_s = 0;
  bool rate_carried = false;
  double rate_factor = 1;  // its ru_rate_factors entry now
  bool masked = false;     // on_ru_loss mask left it out
  bool lost = false;       // its rank was lost
  bool reported = false;
};

// A failure as the EVM recorded it (a FailureRecord, times since t0).
struct MonitorFault {
  std::string unit;    // "BU 2", "RU 1"
  std::string cause;   // "peer lost", "silent", "out of sync"
  std::string action;  // "reassigned", "masked", "stopped"
  double lost_at_s = 0;
  double detected_at_s = 0;
  double recovered_at_s = -1;  // < 0: not (yet) recovered
  uint64_t reassigned = 0;
};

// A run-time change as the EVM applied it (results.control[], the timeline).
struct ControlRecord {
  double t_s = 0;           // since t0
  std::string key;          // parallel, credits, fu.processing_time, ru_rate_factors, pause, resume
  std::string value;        // as applied: "2", "0.001", "[1, 0.5, 1]", "" (pause, resume)
  uint64_t from_event = 0;  // the first event assigned under it (the event boundary)
  std::string source;       // "http" (POST /control) or "config" (the control: key)
};

// The knobs as they stand, and the limits set at start.
struct MonitorParams {
  int parallel = 0;
  int credits = 0;            // slots per BU in use
  int credits_allocated = 0;  // slots per BU allocated at start (the most credits can be)
  double processing_time_s = 0;
  std::vector<double> ru_rate_factors;  // one per RU (1 when the config had none)
  bool paused = false;
};

// The event builders' view of one report interval: the EVM's counters,
// each BU and RU as last reported, the RU->BU traffic, failures, run-time
// changes and the knobs. The monitor's unit figures (figures.hpp), the
// traffic matrix and /api/state's bus, rus, matrix, faults, control and
// params are read from it.
struct EventBuilderView {
  // The EVM's view (counters since t0).
  uint64_t events_assigned = 0;
  uint64_t events_built = 0;
  uint64_t bytes_built = 0;  // payload bytes of the built events
  // EVM cost (results.cost): its thread CPU time in its handlers and the
  // commands and messages it sent and received (counters since t0).
  uint64_t evm_cpu_ns = 0;
  uint64_t evm_commands = 0;
  uint64_t evm_messages = 0;
  std::vector<MonitorBu> bus;  // by BU index (nodes entries)
  std::vector<MonitorRu> rus;  // by RU index (nodes entries)
  // Counter: payload bytes RU r sent to BU b at [r * nodes + b]; over
  // kMatrixFullNodes nodes row r is RU group r (monitor/traffic.hpp).
  std::vector<uint64_t> matrix;
  // Bytes/s RU r sent to BU b, as `matrix`, by BU b's clock as its rate.
  std::vector<double> matrix_rate;
  std::vector<MonitorFault> faults;
  std::vector<ControlRecord> control;
  MonitorParams params;
};

// One `background` entry (a congestor pattern) as its ranks last reported:
// apart from the event builder's figures, one per entry however many ranks
// it has. Its rate is the sum of its ranks' rates, each by the rank's own
// clock over the intervals it reported since the last snapshot, as a BU's.
struct MonitorBackground {
  std::string pattern;          // "incast", "alltoall", ...
  int ranks = 0;                // its congestor ranks
  int ranks_reported = 0;       // of them, those whose stats reached the EVM
  int ranks_sending = 0;        // of them, those sending (or awaiting acks) at their last report
  bool active = true;           // switched on (POST /control background.N.active)
  uint64_t messages = 0;        // counter: data messages (or writes) its ranks sent
  uint64_t bytes = 0;           // counter: bytes its ranks sent
  double rate_bytes_per_s = 0;  // bytes sent per second, its ranks' rates summed
  bool rate_carried = false;    // a rank's rate was carried forward (none of its intervals)
};

// One report interval of a running protocol: what every run has (when,
// what runs, on how many nodes, whether it is over) and the view of the
// protocol family that reports live (the event builders' today: a family
// that comes to report would add its own view beside `eb`).
struct MonitorSnapshot {
  double t_s = 0;         // since t0, when assembled
  double interval_s = 1;  // report_interval
  // Labels of every series: what runs.
  std::string protocol;   // "pull"
  std::string variant;    // "ucx/sm write", as results.variant
  std::string data_path;  // "send" or "write"
  int nodes = 0;
  bool finished = false;  // the last snapshot: assignment has ended
  EventBuilderView eb;
  std::vector<MonitorBackground> background;  // by `background` entry (empty: none)
};

}  // namespace evb
