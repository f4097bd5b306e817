// The one table of core configuration keys.
//
// Each row is a KeySpec (path, type, default as YAML text, unit, range or
// choices, one line of doc) plus the setter and getter binding it to Config.
// Adding a key means adding one row here (and its field in config.hpp);
// validation, to_yaml/to_json, --explain and the Markdown reference follow.
#include "core/config_detail.hpp"
#include "core/config_table_rows.hpp"
#include "core/messages.hpp"

namespace evb {
namespace config_detail {

const std::vector<CoreKey>& core_key_table() {
  using namespace table_rows;
  static const std::vector<CoreKey> table = {
      // ---- topology
      {spec("nodes", K::integer, "4", "nodes", 1, 65536,
            "number of nodes; each runs one RU and one BU"),
       [](Config& c, const Value& v) { c.nodes = static_cast<int>(v.integer); },
       [](const Config& c) { return integer(c.nodes); }},
      {choice("layout", Layout::rubu,
              "rubu: RU and BU in one process per node; split: separate processes"),
       [](Config& c, const Value& v) { c.layout = enum_from<Layout>(v.text); },
       [](const Config& c) { return text(to_string(c.layout)); }},
      {choice("evm", EvmPlacement::dedicated,
              "where the event manager runs: its own rank, or beside rank 0"),
       [](Config& c, const Value& v) { c.evm = enum_from<EvmPlacement>(v.text); },
       [](const Config& c) { return text(to_string(c.evm)); }},
      {spec("fu_per_bu", K::integer, "1", "FUs", 1, 64, "filter units fed by each BU"),
       [](Config& c, const Value& v) { c.fu_per_bu = static_cast<int>(v.integer); },
       [](const Config& c) { return integer(c.fu_per_bu); }},
      {spec("fu.processing_time", K::duration, "0s", "s", 0, 3600,
            "time a filter unit spends on one event"),
       [](Config& c, const Value& v) { c.fu.processing_time_s = v.real; },
       [](const Config& c) { return real(c.fu.processing_time_s); }},
      {spec("fu.accept_ratio", K::real, "1", "", 0, 1, "fraction of events a filter unit accepts"),
       [](Config& c, const Value& v) { c.fu.accept_ratio = v.real; },
       [](const Config& c) { return real(c.fu.accept_ratio); }},

      // ---- protocol
      {spec("protocol", K::choice, "pull", "", -kInf, kInf,
            "event builder (pull, push, pull-noevm), micro-benchmark pattern, or evm-rate (the EVM "
            "alone)"),
       [](Config& c, const Value& v) { c.protocol = v.text; },
       [](const Config& c) { return text(c.protocol); }},
      {choice("scheduling", Scheduling::barrel,
              "order in which a BU visits RUs: barrel shift, a random permutation per event, or "
              "topology (a barrel over a rank ring chosen to avoid link conflicts on "
              "`topology.platform`, as `evbench topo` proposes)"),
       [](Config& c, const Value& v) { c.scheduling = enum_from<Scheduling>(v.text); },
       [](const Config& c) { return text(to_string(c.scheduling)); }},
      {spec("topology.platform", K::string, "", "", -kInf, kInf,
            "platform file (configs/platforms/, docs/TOPOLOGY.md) for scheduling: topology, and "
            "for the predicted rates of a one-to-one shift scan (results.shifts[].predicted); "
            "relative to the current directory"),
       [](Config& c, const Value& v) { c.topology.platform = v.text; },
       [](const Config& c) { return text(c.topology.platform); }},
      {spec("topology.order", K::string, "", "", -kInf, kInf,
            "host names one per line: node i runs on the i-th (empty: the platform's first "
            "`nodes` hosts)"),
       [](Config& c, const Value& v) { c.topology.order = v.text; },
       [](const Config& c) { return text(c.topology.order); }},
      {choice("data_path", DataPath::automatic,
              "how fragments reach the BU: send (two-sided messages), write (one-sided writes "
              "into the BU's registered windows, the immediate naming the slot), auto (the path "
              "the driver declares faster for its variant: write_preferred, measured with "
              "bench/data_path.sh; send without rdma_write)"),
       [](Config& c, const Value& v) { c.data_path = enum_from<DataPath>(v.text); },
       [](const Config& c) { return text(to_string(c.data_path)); }},
      {spec("seed", K::integer, "1", "", 0, kInf, "seed of every random choice (sizes, order)"),
       [](Config& c, const Value& v) { c.seed = static_cast<uint64_t>(v.integer); },
       [](const Config& c) { return integer(static_cast<int64_t>(c.seed)); }},
      {spec("credits", K::integer, "2", "events", 1, 1024,
            "events each BU builds at once (in flight)"),
       [](Config& c, const Value& v) { c.credits = static_cast<int>(v.integer); },
       [](const Config& c) { return integer(c.credits); }},
      {spec("parallel", K::integer, "4", "requests", 1, 1024,
            "fragment requests a BU keeps in flight per credit (at most nodes; when not set: 4, or "
            "nodes if fewer)"),
       [](Config& c, const Value& v) { c.parallel = static_cast<int>(v.integer); },
       [](const Config& c) { return integer(c.parallel); }},
      {spec("batch.events", K::integer, "1", "events", 1, 256,
            "PULL, PUSH: events per credit, per assignment and per fragment request, each a "
            "list behind one command header (1: one event per command); when set, unset "
            "`credits` rise to twice it and unset `command_size` to hold a full list"),
       [](Config& c, const Value& v) { c.batch.events = static_cast<int>(v.integer); },
       [](const Config& c) { return integer(c.batch.events); }},
      {spec("batch.max_wait", K::duration, "1ms", "s", 1e-6, 1,
            "PULL, PUSH: the longest a partial batch (fewer than `batch.events` commands to one "
            "peer) waits before it is sent"),
       [](Config& c, const Value& v) { c.batch.max_wait_s = v.real; },
       [](const Config& c) { return real(c.batch.max_wait_s); }},
      {spec("shift", K::integer, "1", "ranks", 0, 65535,
            "one-to-one: target = (rank + shift) mod nodes; scan = every shift in turn", {"scan"}),
       [](Config& c, const Value& v) {
         c.shift_scan = v.text == "scan";
         if (!c.shift_scan) c.shift = static_cast<int>(v.integer);
       },
       [](const Config& c) { return c.shift_scan ? text("scan") : integer(c.shift); }},
      {spec("senders", K::integer, "0", "RUs", 0, 65535,
            "micro-benchmarks: only RUs 0..senders-1 send, the others only receive (0: every "
            "RU); one-to-one with 2 nodes and senders 1 is one direction, as ucx_perftest and "
            "fi_pingpong measure"),
       [](Config& c, const Value& v) { c.senders = static_cast<int>(v.integer); },
       [](const Config& c) { return integer(c.senders); }},
      {spec("receive_slots", K::integer, "0", "slots", 0, 4096,
            "point-to-point micro-benchmarks: buffers a receiver takes each source's messages "
            "into, in turn (0: `parallel`, one per message in flight, and half as many more, "
            "rounded up, so that a message never waits for the credit of the one before and "
            "freed buffers go back several to a credit: 2 at parallel 1, 48 at 32; 1 at parallel 1 "
            "where the driver moves the data through shared memory, whose second buffer costs "
            "more in cache than the credit it hides, or sends each message by a read "
            "rendezvous (ofi_rxm above 128 KiB), which a second posted buffer slows). Fewer than "
            "`parallel` share a buffer as ucx_perftest and fi_rma_bw do, and a header is then "
            "checked only when no other message was in flight into its buffer "
            "(results.integrity.checks); more rotate through a larger arena"),
       [](Config& c, const Value& v) { c.receive_slots = static_cast<int>(v.integer); },
       [](const Config& c) { return integer(c.receive_slots); }},

      // ---- data
      {spec("fragment.size", K::size, "512KiB", "B", 1, kGiB, "mean payload of one fragment"),
       [](Config& c, const Value& v) { c.fragment.size = v.bytes; },
       [](const Config& c) { return bytes(c.fragment.size); }},
      {choice("fragment.distribution", SizeDistribution::fixed,
              "fragment size distribution around fragment.size"),
       [](Config& c, const Value& v) {
         c.fragment.distribution = enum_from<SizeDistribution>(v.text);
       },
       [](const Config& c) { return text(to_string(c.fragment.distribution)); }},
      {spec("fragment.spread", K::real, "0", "", 0, 4,
            "uniform: +- fraction of size (<= 1); lognormal: sigma; fixed: ignored (when not set: "
            "0.25 for uniform, 0.3 for lognormal)"),
       [](Config& c, const Value& v) { c.fragment.spread = v.real; },
       [](const Config& c) { return real(c.fragment.spread); }},
      {spec("fragment.max_size", K::size, "0", "B", 0, 4 * kGiB,
            "largest fragment; sizes are clamped to it (0 = 4 x fragment.size)"),
       [](Config& c, const Value& v) { c.fragment.max_size = v.bytes; },
       [](const Config& c) { return bytes(c.fragment.max_size); }},
      {spec("fragment.data_segments", K::integer, "1", "segments", 1, 4096,
            "payload is sent as this many segments"),
       [](Config& c, const Value& v) {
         c.fragment.data_segments = static_cast<uint32_t>(v.integer);
       },
       [](const Config& c) { return integer(c.fragment.data_segments); }},
      {spec("fragment.meta_size", K::size, "0", "B", 0, kMiB, "bytes of each metadata segment"),
       [](Config& c, const Value& v) { c.fragment.meta_size = v.bytes; },
       [](const Config& c) { return bytes(c.fragment.meta_size); }},
      {spec("fragment.meta_segments", K::integer, "0", "segments", 0, 4096,
            "metadata segments per fragment"),
       [](Config& c, const Value& v) {
         c.fragment.meta_segments = static_cast<uint32_t>(v.integer);
       },
       [](const Config& c) { return integer(c.fragment.meta_segments); }},
      {spec("fragment.events", K::integer, "1", "events", 1, kMaxMepEvents,
            "events per fragment (packing factor p): a fragment is a multi-event packet of p "
            "consecutive events of one source, each about fragment.size"),
       [](Config& c, const Value& v) { c.fragment.events = static_cast<uint32_t>(v.integer); },
       [](const Config& c) { return integer(c.fragment.events); }},
      {spec("ru_rate_factors", K::real_list, "[]", "", 0.001, 1000,
            "relative fragment size per RU, one per node ([] = all 1)"),
       [](Config& c, const Value& v) { c.ru_rate_factors = v.reals; },
       [](const Config& c) {
         Value v;
         v.reals = c.ru_rate_factors;
         return v;
       }},
      {spec("ru_buffer", K::size, "64MiB", "B", 4 * kKiB, kTiB,
            "bytes of each RU's fragment ring (cache- or memory-resident); under on_failure "
            "exclude, when unset, at least twice nodes x credits maximal fragments"),
       [](Config& c, const Value& v) { c.ru_buffer = v.bytes; },
       [](const Config& c) { return bytes(c.ru_buffer); }},
      {choice("page_size", PageSize::huge,
              "pages of the RU ring, the BU windows and the micro-benchmarks' buffers: normal, "
              "or huge (2 MiB-aligned, advised for transparent huge pages; what the kernel "
              "gave is results.anon_huge_bytes)"),
       [](Config& c, const Value& v) { c.page_size = enum_from<PageSize>(v.text); },
       [](const Config& c) { return text(to_string(c.page_size)); }},
      {choice("local_fragment", LocalFragment::in_place,
              "PULL and PULL-without-EVM: the fragment of the RU sharing a BU's process is "
              "checked where it lies in the RU's ring and built by reference (in_place), or "
              "copied into the BU's window like the others (copy); copy is used anyway under "
              "on_failure exclude and with fault.corrupt"),
       [](Config& c, const Value& v) { c.local_fragment = enum_from<LocalFragment>(v.text); },
       [](const Config& c) { return text(to_string(c.local_fragment)); }},
      {spec("command_size", K::size, "64", "B", 64, kMiB,
            "bytes of one command message (credit, assign, request)"),
       [](Config& c, const Value& v) { c.command_size = v.bytes; },
       [](const Config& c) { return bytes(c.command_size); }},

      // ---- duration
      {spec("duration", K::duration, "3s", "s", 1e-3, 86400,
            "measured time (used when events = 0)"),
       [](Config& c, const Value& v) { c.duration_s = v.real; },
       [](const Config& c) { return real(c.duration_s); }},
      {spec("events", K::integer, "0", "events", 0, kInf,
            "build exactly this many events (0 = run for duration; a multiple of fragment.events)"),
       [](Config& c, const Value& v) { c.events = static_cast<uint64_t>(v.integer); },
       [](const Config& c) { return integer(static_cast<int64_t>(c.events)); }},
      {spec("warmup", K::duration, "0.5s", "s", 0, 3600,
            "time before measuring starts (part of duration)"),
       [](Config& c, const Value& v) { c.warmup_s = v.real; },
       [](const Config& c) { return real(c.warmup_s); }},
      {spec("report_interval", K::duration, "1s", "s", 0.01, 3600,
            "period of the live report line"),
       [](Config& c, const Value& v) { c.report_interval_s = v.real; },
       [](const Config& c) { return real(c.report_interval_s); }},
      {spec("peer_timeout", K::duration, "30s", "s", 0.1, 86400,
            "no progress from a peer for this long (plus fu.processing_time) is a runtime error"),
       [](Config& c, const Value& v) { c.peer_timeout_s = v.real; },
       [](const Config& c) { return real(c.peer_timeout_s); }},

      // ---- integrity
      {spec("verify.sample", K::real, "0.015625", "", 0, 1,
            "fraction of fragments whose payload CRC32C is checked"),
       [](Config& c, const Value& v) { c.verify_sample = v.real; },
       [](const Config& c) { return real(c.verify_sample); }},
      {choice("verify.payload", VerifyPayload::automatic,
              "payload checksums at the BU: on (verify.sample of the fragments, and each RU's "
              "first), off (header checks only), auto: on, except under `evbench sim`, where "
              "payloads live in shared memory and sim sets off (results.integrity.payload_checks "
              "says which)"),
       [](Config& c, const Value& v) { c.verify_payload = enum_from<VerifyPayload>(v.text); },
       [](const Config& c) { return text(to_string(c.verify_payload)); }},
      {spec("fault.corrupt_every", K::integer, "0", "fragments", 0, kInf,
            "fault injection: each RU corrupts every Nth fragment (0 = off)"),
       [](Config& c, const Value& v) { c.corrupt_every = static_cast<uint64_t>(v.integer); },
       [](const Config& c) { return integer(static_cast<int64_t>(c.corrupt_every)); }},
      {spec("fault.corrupt", K::real, "0", "", 0, 1,
            "fault injection: probability per fragment that one bit of it (header, metadata or "
            "payload, seeded) flips on arrival at the BU; every one must be detected "
            "(results.faults); BUs then check every fragment whatever verify.sample says"),
       [](Config& c, const Value& v) { c.corrupt_probability = v.real; },
       [](const Config& c) { return real(c.corrupt_probability); }},

      // ---- failures
      {choice("on_failure", OnFailure::abort,
              "a lost peer: abort the run, or exclude a lost BU and reassign its events (needs "
              "an EVM and a driver that survives a peer's death; a lost RU: see on_ru_loss; a "
              "lost EVM ends the run)"),
       [](Config& c, const Value& v) { c.on_failure = enum_from<OnFailure>(v.text); },
       [](const Config& c) { return text(to_string(c.on_failure)); }},
      {choice("on_ru_loss", OnRuLoss::stop,
              "on_failure exclude: a lost RU (data source) stops assignment and its events stay "
              "incomplete (stop, exit 3), or is masked: events are built from the other RUs and "
              "counted (results.integrity.masked_events; exit 0). mask implies on_failure "
              "exclude when that is not set"),
       [](Config& c, const Value& v) { c.on_ru_loss = enum_from<OnRuLoss>(v.text); },
       [](const Config& c) { return text(to_string(c.on_ru_loss)); }},
      {spec("failure_detection", K::duration, "1s", "s", 0.05, 3600,
            "on_failure exclude: a BU the EVM has not heard from for this long (BUs send "
            "heartbeats every quarter of it) is excluded"),
       [](Config& c, const Value& v) { c.failure_detection_s = v.real; },
       [](const Config& c) { return real(c.failure_detection_s); }},
      {spec("faults", K::fault_list, "[]", "", -kInf, kInf,
            "timed fault injection, seconds into the data phase: {at: 2s, kill: bu2} (SIGKILL "
            "the process hosting the unit), {at: 1s, stall: ru1, for: 800ms} (it stops "
            "progressing), {at: 3s, delay: ru0, by: 5ms, for: 1s} (each send it posts waits), "
            "{at: 2s, desync: ru1, by: 3} (the RU loses event synchronisation: asked for event "
            "e it serves a well-formed fragment of e+3; the BUs find it out of sync and the run "
            "ends with an integrity error), {corrupt: 0.001} (fault.corrupt as a list entry: the "
            "whole run)"),
       [](Config& c, const Value& v) { c.faults = v.faults; },
       [](const Config& c) {
         Value v;
         v.faults = c.faults;
         return v;
       }},

      {spec("control", K::control_list, "[]", "", -kInf, kInf,
            "timed run-time changes, seconds into the data phase, applied by the EVM as a "
            "POST /control of the monitor would be (docs/MONITORING.md): {at: 5s, parallel: 2}, "
            "{at: 8s, credits: 1, fu.processing_time: 2ms}, {at: 10s, ru_rate_factors: [1, "
            "0.5, 1, 1]}, {at: 12s, pause: true}, {at: 14s, resume: true}; a tuning session "
            "from results.control[] replayed (pull, push)"),
       [](Config& c, const Value& v) { c.control = v.controls; },
       [](const Config& c) {
         Value v;
         v.controls = c.control;
         return v;
       }},
      {spec("background", K::background_list, "[]", "", -kInf, kInf,
            "congestors beside the event builder, extra processes after its ranks over the same "
            "driver (docs/USER_GUIDE.md, \"Background traffic\"): {pattern: incast|alltoall|bcast|"
            "write-incast|one-to-one, ranks: 4 (or a share of the hosts, 50%: one rank on each of "
            "that "
            "share of nodes, rounded, at least 2), size: 256KiB, in_flight: 8, shift: 1 "
            "(one-to-one), "
            "start: 0s, stop: end (warmup + duration)}, their rates in results.background[]"),
       [](Config& c, const Value& v) { c.background = v.background; },
       [](const Config& c) {
         Value v;
         v.background = c.background;
         return v;
       }},

      // ---- transport and start-up (driver and bootstrap choices come from the plug-ins)
      {spec("driver", K::choice, "tcp", "", -kInf, kInf, "network driver"),
       [](Config& c, const Value& v) { c.driver = v.text; },
       [](const Config& c) { return text(c.driver); }},
      {spec("driver_options", K::string_map, "{}", "", -kInf, kInf,
            "options of the selected driver (see the driver tables)"),
       [](Config& c, const Value& v) { c.driver_options = v.map; },
       [](const Config& c) {
         Value v;
         v.map = c.driver_options;
         return v;
       }},
      {spec("bootstrap", K::choice, "local", "", -kInf, kInf,
            "how processes start and find each other"),
       [](Config& c, const Value& v) { c.bootstrap = v.text; },
       [](const Config& c) { return text(c.bootstrap); }},
      {spec("monitor.port", K::integer, "0", "", 0, 65535,
            "TCP port of the run monitor (docs/MONITORING.md): the EVM's rank serves "
            "Prometheus /metrics, the live page and POST /control there; 0: no monitor"),
       [](Config& c, const Value& v) { c.monitor.port = static_cast<int>(v.integer); },
       [](const Config& c) { return integer(c.monitor.port); }},
      {spec("monitor.bind", K::string, "127.0.0.1", "", -kInf, kInf,
            "IP address the monitor listens on (127.0.0.1: this host only; 0.0.0.0 exposes "
            "it to every network the host is on)"),
       [](Config& c, const Value& v) { c.monitor.bind = v.text; },
       [](const Config& c) { return text(c.monitor.bind); }},
      {spec("monitor.token_file", K::string, "", "", -kInf, kInf,
            "file holding the monitor's token (read when it exists, else created with a "
            "random token, mode 0600), for a Prometheus credentials_file; empty: a fresh "
            "token each run, printed at start"),
       [](Config& c, const Value& v) { c.monitor.token_file = v.text; },
       [](const Config& c) { return text(c.monitor.token_file); }},
      {choice("bind", Bind::core,
              "where ranks run: core binds one rank per core of the CPUs the process may use "
              "(sched_getaffinity; distinct physical cores before their hyperthreads, in rank "
              "order); with more ranks than those CPUs the local bootstrap binds none (ranks "
              "pinned two to a CPU stall one another) and the placement line says so; none "
              "leaves them to the kernel. "
              "The local bootstrap binds; under mpirun or srun the launcher does (the lines "
              "evbench writes ask for it) and evbench only reports what it finds "
              "(results.placement)"),
       [](Config& c, const Value& v) { c.bind = enum_from<Bind>(v.text); },
       [](const Config& c) { return text(to_string(c.bind)); }},
      {choice("poll_mode", PollMode::automatic,
              "idle waiting: busy poll, yield, block in the driver (yield if it cannot); "
              "auto = busy while this host's evbench processes fit its logical CPUs"),
       [](Config& c, const Value& v) { c.poll_mode = enum_from<PollMode>(v.text); },
       [](const Config& c) { return text(to_string(c.poll_mode)); }},
  };
  return table;
}

const CoreKey* find_core_key(const std::string& path) {
  for (const auto& k : core_key_table())
    if (k.spec.path == path) return &k;
  return nullptr;
}

}  // namespace config_detail

const std::vector<KeySpec>& core_keys() {
  static const std::vector<KeySpec> keys = [] {
    std::vector<KeySpec> out;
    for (const auto& k : config_detail::core_key_table()) out.push_back(k.spec);
    return out;
  }();
  return keys;
}

}  // namespace evb
