#pragma once
// The event builders (pull/, push/, pull_noevm/) as one entry point for the
// worker: given the rank's engine and driver, it makes the units this rank
// hosts (RU ring, BU windows, FUs), registers their memory with the driver
// once, advertises BU windows for data_path write, and adds the protocol's
// agents to the engine. Which agent classes play each role is the
// protocol's choice, looked up once here; shared agents never ask.
#include <memory>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "drivers/api/bootstrap.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/common/rank_stats.hpp"
#include "units/builder_unit.hpp"
#include "units/filter_units.hpp"
#include "units/readout_unit.hpp"

namespace evb {

// Units, registrations and agents hosted by one rank, kept alive for the run
// (members are destroyed in reverse order: agents, then registrations, then
// the memory they cover).
struct EventBuilderRank {
  std::unique_ptr<ReadoutUnit> ru;
  std::unique_ptr<BuilderUnit> bu;
  std::unique_ptr<FilterUnits> fus;
  RegistrationPtr ru_memory;
  RegistrationPtr bu_memory;         // owns the BU's windows (allocate_memory); `bu` only points in
  std::vector<WriteTarget> windows;  // per BU index (data_path write)
  std::vector<std::unique_ptr<Agent>> agents;
};

// Resolves data_path for `driver`: auto -> write when it has rdma_write;
// write without rdma_write -> ConfigError naming the driver. Micro-benchmarks: send.
DataPath resolve_data_path(const Config& config, const Driver& driver);

// Collective (window advertisement). `config.data_path` must be resolved.
// `keep_dir`: where a BU keeps a fragment it finds out of sync ("": here).
void build_event_builder(EventBuilderRank& out, Engine& engine, Bootstrap& boot,
                         const Topology& topo, RankStats& stats, bool quiet,
                         const std::string& keep_dir = "");

}  // namespace evb
