#pragma once
// The protocol interface: what a protocol folder (pull/, push/, pull_noevm/,
// microbench/) hands to the registry, and what a rank runs.
//
// A protocol is a plug-in like a driver. Its factory describes it to the
// configuration (the keys it reads, the rules it adds, whether its plan has
// an EVM rank and builds events) and, once a rank's driver is connected,
// creates the ProtocolRun that sets up its units on the engine and runs
// them. Nothing outside src/protocols names a protocol: the worker calls
// create -> set_up -> run -> finish, validation asks the factory's traits
// and rules, rank 0's report asks its ProtocolReport (protocol_report.hpp).
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"
#include "core/topology.hpp"
#include "drivers/api/bootstrap.hpp"
#include "drivers/api/driver.hpp"
#include "protocols/api/memory_need.hpp"
#include "protocols/api/protocol_report.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

// What a rank's run gets: its connected driver and bootstrap, the plan, the
// configuration as this driver runs it (ProtocolFactory::resolve), how idle
// ranks wait, names of the ranks for messages, and where its figures go.
struct ProtocolContext {
  Driver& driver;
  Bootstrap& boot;
  const Topology& topo;
  const Config& config;
  PollMode mode;
  const std::vector<std::string>& peer_names;
  RankStats& stats;
  bool quiet = false;    // --quiet: no live lines
  bool live = false;     // announce each step of a scan on stderr (not under --quiet or sim)
  std::string keep_dir;  // where a fragment found out of sync is kept ("" : here)
  // Read the rank's own CPU time at the edges of the measured window
  // (results.rank_cpu); not under `evbench sim`, whose CPU is the simulator's.
  bool measure_cpu = false;
};

// One rank's part of a run, created once the driver is connected.
class ProtocolRun {
 public:
  virtual ~ProtocolRun() = default;
  // Collective set-up: memory, windows advertised to peers, agents.
  virtual void set_up() = 0;
  // The measurement; throws evb::Error when the run fails.
  virtual void run() = 0;
  // After run(): what the rank's units counted (integrity, filter units,
  // memory in use while the buffers are still held) into its statistics.
  virtual void finish(RankStats& /*stats*/) {}
};

struct ProtocolFactory {
  std::string name;     // as written in YAML ("pull", "one-to-one")
  std::string summary;  // one line
  // Keys it reads beyond those every run reads (docs/CONFIG.md; a key set
  // explicitly that it does not read draws a warning).
  std::vector<std::string> keys;
  // Traits the configuration and the tools ask, never the name: an EVM rank
  // in the plan (Config::with_evm), RUs, BUs and fragments (the event
  // builders' checks, payload verification, faults on units).
  bool uses_evm = false;
  bool builds_events = false;
  // Under `evbench sim`, idle ranks block in MPI_Waitany (many receives from
  // any peer), as the event builders' and the all-to-all's do; the
  // point-to-point micro-benchmarks keep polling (docs/SCALE.md).
  bool sim_waits_for_any = false;
  // Consistency rules of its own, checked when it is the selected protocol.
  std::vector<KeyRule> rules;
  // Measurement steps in one run (a one-to-one shift scan: one per shift).
  std::function<int(const Config&)> steps = [](const Config&) { return 1; };
  // What `evbench sim` cannot simulate of this configuration: throws
  // ConfigError (may be empty).
  std::function<void(const Config&)> check_simulated;
  // The large blocks one rank with `roles` allocates (memory check).
  std::function<std::vector<MemoryNeed>(const Config&, const RankRoles&)> memory_needs;
  // The configuration as `driver` runs it (data_path auto resolved);
  // ConfigError when the driver lacks what it needs.
  std::function<Config(const Config&, const Driver&)> resolve;
  std::function<std::unique_ptr<ProtocolRun>(const ProtocolContext&)> create;
  // Rank 0's share of the report: its summary of every rank's statistics,
  // its lines of the table, its JSON fields, its verdict.
  std::shared_ptr<const ProtocolReport> report;
};

}  // namespace evb
