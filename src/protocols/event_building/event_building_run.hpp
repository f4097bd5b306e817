#pragma once
// What pull/, push/ and pull_noevm/ share as plug-ins: one rank's run of an
// event builder (the engine, the fault injector, the units and the agents
// the folder chose) and the factory fields every event builder has alike
// (data path resolution, memory needs, the rules on its keys). A folder adds
// its name, keys, agents and its own traits.
#include <memory>
#include <optional>
#include <string>

#include "protocols/api/protocol.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/common/fault_injector.hpp"
#include "protocols/event_building/event_building_rank.hpp"
#include "protocols/event_building/event_building_stats.hpp"
#include "protocols/event_building/window_cpu.hpp"
#include "protocols/monitor/endpoint.hpp"

namespace evb {

class EventBuildingRun : public ProtocolRun {
 public:
  EventBuildingRun(const ProtocolContext& ctx, const ProtocolAgents& agents);
  void set_up() override;
  void run() override { engine_->run(); }
  void finish(RankStats& stats) override;

 private:
  ProtocolContext ctx_;
  ProtocolAgents agents_;
  FaultInjector faults_;
  EventBuildingStats own_;   // what the agents count (outlives them), rank 0's at the end
  MonitorEndpoint monitor_;  // the EVM's rank, monitor.port set (outlives the engine's agents)
  std::optional<Engine> engine_;
  EventBuildingRank units_;
  std::optional<WindowCpu> window_cpu_;  // RU and BU ranks, not under sim
};

// A factory with what every event builder shares filled in; `agents` are
// the folder's classes.
ProtocolFactory event_building_factory(std::string name, std::string summary,
                                       std::vector<std::string> keys, const ProtocolAgents& agents);

// The rules every event builder adds (parallel, fragment segments, the ring
// under on_failure exclude).
std::vector<KeyRule> event_building_rules();
// `control:` entries must pass the monitor's /control parser against this
// run's limits (`pulls`: PULL-style builders, which read `parallel`).
KeyRule control_rule(bool pulls);
// The rules on batch.events: within credits, command_size and the driver's
// messages with an EVM (`with_evm`), else refused (batch_rules.cpp).
std::vector<KeyRule> batch_rules(bool with_evm);

// The RU ring and checksum table, the BU windows of a rank with `roles`.
std::vector<MemoryNeed> event_building_memory(const Config& config, const RankRoles& roles);

}  // namespace evb
