#pragma once
// The event builders (pull/, push/, pull_noevm/) as one entry point for the
// worker: given the rank's engine and driver, it makes the units this rank
// hosts (RU ring, BU windows, FUs), registers their memory with the driver
// once, advertises BU windows for data_path write, and adds the protocol's
// agents to the engine. Which agent classes play each role is the
// protocol's choice, looked up once here; shared agents never ask.
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/topology.hpp"
#include "drivers/api/bootstrap.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/event_building/bu_agent.hpp"
#include "protocols/event_building/event_building_stats.hpp"
#include "protocols/event_building/evm_agent.hpp"
#include "protocols/monitor/monitor_hub.hpp"
#include "units/builder_unit.hpp"
#include "units/filter_units.hpp"
#include "units/readout_unit.hpp"

namespace evb {

// Units, registrations and agents hosted by one rank, kept alive for the run
// (members are destroyed in reverse order: agents, then registrations, then
// the memory they cover).
struct EventBuildingRank {
  std::unique_ptr<ReadoutUnit> ru;
  std::unique_ptr<BuilderUnit> bu;
  std::unique_ptr<FilterUnits> fus;
  RegistrationPtr ru_memory;
  RegistrationPtr bu_memory;         // owns the BU's windows (allocate_memory); `bu` only points in
  std::vector<WriteTarget> windows;  // per BU index (data_path write)
  std::vector<std::unique_ptr<Agent>> agents;
};

// The agent classes of one event builder (its folder's choice): the BU's,
// the EVM's (none for pull-noevm), and whether its BUs request fragments
// PULL-style (then a BU may take its own RU's fragment in place).
struct ProtocolAgents {
  std::unique_ptr<BuAgent> (*bu)(Engine&, BuilderUnit&, FilterUnits&, const Registration&,
                                 const Topology&, EventBuildingStats&, bool write,
                                 bool live) = nullptr;
  std::unique_ptr<EvmAgent> (*evm)(Engine&, const Topology&, EventBuildingStats&,
                                   bool live) = nullptr;
  bool pulls = false;
};

template <class Bu, class Evm>
ProtocolAgents agents_of(bool pulls) {
  ProtocolAgents a{};
  a.bu = [](Engine& e, BuilderUnit& b, FilterUnits& f, const Registration& r, const Topology& t,
            EventBuildingStats& s, bool write, bool live) -> std::unique_ptr<BuAgent> {
    return std::make_unique<Bu>(e, b, f, r, t, s, write, live);
  };
  if constexpr (!std::is_same_v<Evm, void>)
    a.evm = [](Engine& e, const Topology& t, EventBuildingStats& s,
               bool live) -> std::unique_ptr<EvmAgent> {
      return std::make_unique<Evm>(e, t, s, live);
    };
  a.pulls = pulls;
  return a;
}

// Collective (window advertisement). `config.data_path` must be resolved.
// `keep_dir`: where a BU keeps a fragment it finds out of sync ("": here).
// With monitor.port set, every rank gets a MonitorReporter and the EVM's
// rank a MonitorHub publishing into `monitor` (its state; null elsewhere).
void build_event_building_rank(EventBuildingRank& out, Engine& engine, Bootstrap& boot,
                               const Topology& topo, EventBuildingStats& stats, bool quiet,
                               const ProtocolAgents& make, const std::string& keep_dir = "",
                               MonitorState* monitor = nullptr, const MonitorLabels& labels = {});

}  // namespace evb
