#pragma once
// The resolved run configuration.
//
// Config is a plain value: loaded once (config_loader.hpp) from YAML plus
// --set overrides, validated against the key table (config_table.hpp), then
// passed down by const reference. Nothing reads options from anywhere else.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/aligned_buffer.hpp"

namespace evb {

enum class Layout { rubu, split };
enum class EvmPlacement { dedicated, with_rank0 };
enum class Scheduling { barrel, random, topology };
enum class SizeDistribution { fixed, uniform, lognormal };
enum class PollMode { automatic, busy, yield, block };
// How fragments reach the BU: two-sided messages, or one-sided writes into
// the BU's registered windows (auto: write when the driver can).
enum class DataPath { automatic, send, write };
// What a lost peer does to the run: abort it, or (exclude) remove a lost BU
// and reassign its events (docs/USER_GUIDE.md, "Failures").
enum class OnFailure { abort, exclude };
// What a lost RU (data source) does under on_failure exclude: stop
// assignment (its events stay incomplete), or mask it and go on building
// events from the other RUs (docs/USER_GUIDE.md, "Failures").
enum class OnRuLoss { stop, mask };

// How a BU gets the fragment of the RU in its own process (PULL,
// PULL-without-EVM): copied into its window like every other, or checked
// where it lies in the RU's ring and built by reference (no copy).
enum class LocalFragment { copy, in_place };
// verify.payload: automatic checks payloads (sampled, verify.sample) unless
// `evbench sim` turns them off (payload memory shared under SMPI).
enum class VerifyPayload { automatic, on, off };
// Where ranks run (src/core/placement.hpp): one per core of the allowed CPUs
// (the local launcher binds them; mpirun and srun lines evbench writes ask for
// it), or wherever the kernel puts them.
enum class Bind { core, none };

// One entry of `faults:`: at `at_s` into the data phase, the process hosting
// `unit` ("bu2", "ru0", "evm") is killed, stalls for `for_s`, or delays each
// send by `by_s` for `for_s`; the RU `unit` loses event synchronisation
// (desync: from then on it serves, for event e, the fragment of event
// e + `by_events`, well formed and labelled so); or, for the whole run, each
// fragment is corrupted on arrival with `probability` (the same as
// `fault.corrupt`).
struct FaultSpec {
  enum class Kind { kill, stall, delay, corrupt, desync };
  Kind kind = Kind::kill;
  double at_s = 0;
  std::string unit;        // ru<N>, bu<N> or evm
  double for_s = 0;        // stall, delay
  double by_s = 0;         // delay
  int64_t by_events = 0;   // desync: events skipped (> 0) or repeated (< 0)
  double probability = 0;  // corrupt
};

struct FragmentConfig {
  uint64_t size = 512 * 1024;  // mean payload bytes per fragment
  SizeDistribution distribution = SizeDistribution::fixed;
  double spread = 0.0;         // uniform: +-fraction; lognormal: sigma
  uint64_t max_size = 0;       // clamp (0 = 4 x size)
  uint32_t data_segments = 1;  // payload split into this many segments
  uint64_t meta_size = 0;      // bytes per metadata segment
  uint32_t meta_segments = 0;  // number of metadata segments
  // Events per fragment (the packing factor p): a fragment is a multi-event
  // packet (MEP) of p consecutive events of one source; `size` stays one
  // event's payload. 1: one event per fragment (header version 2).
  uint32_t events = 1;
};

// scheduling: topology. `ring` is not a key: the application fills it from
// the platform (evbench_topo) after loading, node indices in the order the
// barrel runs over (empty: plain barrel).
struct TopologyConfig {
  std::string platform;  // platform YAML (configs/platforms/), "" = none
  std::string order;     // host names one per line; "" = the platform's first hosts
  std::vector<int> ring;
};

struct FuConfig {
  double processing_time_s = 0.0;  // time a FU spends on one event
  double accept_ratio = 1.0;       // fraction of events accepted (counted)
};

// Batching of commands (PULL, PUSH): how many events one credit, one
// assignment and one fragment request carry, and how long a partial batch
// may wait before it is sent anyway. 1: every command carries one event.
struct BatchConfig {
  int events = 1;
  double max_wait_s = 0.001;
};

// One entry of `control:`: at `at_s` into the data phase, the EVM applies
// `body` as if POSTed to the monitor's /control (a flow YAML map such as
// {parallel: 2}; checked against the run's limits by the event builders'
// rules). A live tuning session (results.control[]) replayed as a config.
struct ControlStep {
  double at_s = 0;
  std::string body;
};

// One entry of `background:`: a congestor, `ranks` extra processes beside
// the event builder's (placed after them, by the same rules) that exchange
// `size`-byte messages, `in_flight` outstanding per peer, over the run's
// driver from `start_s` to `stop_s` into the data phase (stop_s < 0: to the
// run's configured end, warmup + duration). incast: ranks 1.. send to rank 0
// of the entry; write-incast: the same as one-sided writes into its window;
// bcast: rank 0 sends to the others; alltoall: each to every other;
// one-to-one: member i to member (i + shift) mod ranks.
// `ranks: 50%` (hosts_percent > 0): that share of the run's hosts (its
// `nodes`) each get one congestor rank: `ranks` is resolved at load to the
// share of nodes rounded to the nearest whole (halves up), at least 2, and
// member m stands for builder node m * nodes / ranks (spread over them).
struct BackgroundSpec {
  enum class Pattern { incast, alltoall, bcast, write_incast, one_to_one };
  Pattern pattern = Pattern::incast;
  int ranks = 4;
  double hosts_percent = 0;  // ranks: P% (0: ranks is a count of extra ranks)
  uint64_t size = 256 * 1024;
  int in_flight = 8;
  int shift = 1;  // one-to-one
  double start_s = 0;
  double stop_s = -1;
};

// monitor.*: where the EVM's rank serves /metrics, the live page and
// /control (port 0: no monitor), and where its token is kept.
struct MonitorConfig {
  int port = 0;
  std::string bind = "127.0.0.1";
  std::string token_file;  // "" : a fresh random token, printed at start
};

struct Config {
  // Topology
  int nodes = 4;
  Layout layout = Layout::rubu;
  EvmPlacement evm = EvmPlacement::dedicated;
  int fu_per_bu = 1;
  FuConfig fu;

  // Protocol
  // A protocol registered under this name (src/protocols/api): checked
  // against the built ones by the loader, like `driver`.
  std::string protocol = "pull";
  // Not a key: whether the protocol's plan has an EVM rank (its factory's
  // uses_evm), set by the loader from the registry; make_topology reads it.
  bool with_evm = true;
  Scheduling scheduling = Scheduling::barrel;
  uint64_t seed = 1;
  int credits = 2;
  int parallel = 4;
  BatchConfig batch;
  DataPath data_path = DataPath::automatic;
  int shift = 1;            // one-to-one: target = (rank + shift) mod n
  bool shift_scan = false;  // shift: scan -> every shift 0..n-1 in turn
  int senders = 0;          // micro-benchmarks: RUs 0..senders-1 send (0: every RU)
  int receive_slots = 0;    // point-to-point micro-benchmarks: buffers per source (0: parallel)
  // Not a key: the driver's Capabilities::shared_memory_path, set by the
  // micro-benchmarks' resolve once the driver runs; unset receive_slots
  // then means one slot at parallel 1 (docs/MICROBENCH.md "Receive slots").
  bool shared_memory_path = false;
  // Not a key: the driver's Capabilities::read_rendezvous_above, set alike;
  // unset receive_slots means one slot at parallel 1 for sends above it.
  uint64_t read_rendezvous_above = 0;
  TopologyConfig topology;  // scheduling: topology

  // Data
  FragmentConfig fragment;
  std::vector<double> ru_rate_factors;  // empty = all 1.0; else one per RU
  uint64_t ru_buffer = 64ull << 20;     // bytes of each RU's fragment ring
  uint64_t command_size = 64;
  PageSize page_size = PageSize::huge;  // RU ring, BU windows, micro-benchmark buffers

  // Duration
  double duration_s = 3.0;  // used when events == 0
  uint64_t events = 0;      // > 0: build exactly this many events
  double warmup_s = 0.5;
  double report_interval_s = 1.0;
  double peer_timeout_s = 30.0;  // no progress for this long -> runtime error

  // Integrity
  double verify_sample = 1.0 / 64.0;  // fraction of fragments whose CRC is checked
  VerifyPayload verify_payload = VerifyPayload::automatic;  // off: header checks only
  uint64_t corrupt_every = 0;      // fault injection: RU corrupts every Nth fragment
  double corrupt_probability = 0;  // fault injection: BU flips a bit of a fragment on arrival

  // Failures
  OnFailure on_failure = OnFailure::abort;
  OnRuLoss on_ru_loss = OnRuLoss::stop;  // exclude: a lost RU stops the run or is masked
  LocalFragment local_fragment = LocalFragment::in_place;
  double failure_detection_s = 1.0;  // exclude: a BU silent this long is excluded
  std::vector<FaultSpec> faults;     // timed fault injection

  // Transport and start-up
  std::string driver = "tcp";
  std::map<std::string, std::string> driver_options;  // validated by the driver's table
  std::string bootstrap = "local";
  PollMode poll_mode = PollMode::automatic;
  Bind bind = Bind::core;

  // The run monitor (docs/MONITORING.md): an HTTP endpoint on the EVM's
  // rank, off while port is 0.
  MonitorConfig monitor;
  std::vector<ControlStep> control;  // timed run-time changes (the monitor's /control)

  // Background traffic beside the event builder (congestors): none when empty.
  std::vector<BackgroundSpec> background;

  // Where it came from
  std::string source = "<defaults>";
  // Keys set explicitly that the selected protocol does not read (printed,
  // not fatal: a file shared by several protocols stays usable).
  std::vector<std::string> warnings;
};

// Names of enum values as written in YAML.
const char* to_string(Layout);
const char* to_string(EvmPlacement);
const char* to_string(Scheduling);
const char* to_string(SizeDistribution);
// fragment.spread when the user did not set it: 0.25 (uniform), 0.3
// (lognormal sigma); `current` for fixed, which ignores it.
double default_spread(SizeDistribution d, double current);
const char* to_string(PollMode);
const char* to_string(PageSize);
const char* to_string(DataPath);
const char* to_string(OnFailure);
const char* to_string(OnRuLoss);
const char* to_string(LocalFragment);
const char* to_string(VerifyPayload);
const char* to_string(Bind);
const char* to_string(FaultSpec::Kind);
const char* to_string(BackgroundSpec::Pattern);

}  // namespace evb
