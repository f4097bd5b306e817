#include "protocols/event_building/event_building_run.hpp"

#include "core/aligned_buffer.hpp"
#include "protocols/common/data_path.hpp"
#include "protocols/event_building/control_limits.hpp"
#include "protocols/event_building/event_building_report.hpp"
#include "protocols/event_building/event_building_stats_fields.hpp"
#include "units/builder_unit.hpp"
#include "units/readout_unit.hpp"

namespace evb {

EventBuildingRun::EventBuildingRun(const ProtocolContext& ctx, const ProtocolAgents& agents)
    : ctx_(ctx), agents_(agents), faults_(ctx.config, ctx.topo, ctx.boot.rank()) {}

void EventBuildingRun::set_up() {
  engine_.emplace(ctx_.driver, ctx_.boot.rank(), ctx_.config, ctx_.mode, ctx_.peer_names);
  if (!faults_.empty()) engine_->set_faults(&faults_);
  const Config& c = ctx_.config;
  MonitorLabels labels;
  if ((c.monitor.port != 0 || !c.control.empty()) && ctx_.topo.ranks.at(ctx_.boot.rank()).evm) {
    // The state the hub publishes into and takes requests from; served
    // over HTTP only with monitor.port (else the `control:` list alone).
    monitor_ = open_monitor(c, control_limits(c, agents_.pulls));
    labels.protocol = c.protocol;
    labels.variant = ctx_.driver.variant();
    if (ctx_.driver.capabilities().rdma_write)
      labels.variant += std::string(" ") + to_string(c.data_path);
    labels.data_path = to_string(c.data_path);
  }
  build_event_building_rank(units_, *engine_, ctx_.boot, ctx_.topo, own_, ctx_.quiet, agents_,
                            ctx_.keep_dir, monitor_.state.get(), labels);
  if (ctx_.measure_cpu && (units_.ru || units_.bu)) window_cpu_.emplace(*engine_, own_);
}

void EventBuildingRun::finish(RankStats& stats) {
  if (units_.bu) {
    own_.integrity = units_.bu->integrity();
    if (own_.integrity_problem.empty())  // else the RU's (ring overrun) came first
      own_.integrity_problem = units_.bu->first_problem();
    own_.fu_processed = units_.fus->processed();
    own_.fu_accepted = units_.fus->accepted();
  }
  if (window_cpu_) window_cpu_->finish();
  own_.commands = engine_->counts().flat();
  if (const CpuMeter* m = engine_->meter()) {  // the EVM's rank
    own_.evm_cpu_ns = m->net_ns();
    own_.evm_cpu_stretches = m->stretches();
    own_.evm_clock_overhead_ns = m->overhead_ns();
    own_.evm_loop_cpu_ns = m->loop_ns();
  }
  if (units_.ru || units_.bu) {  // buffers still held
    stats.anon_huge_bytes = anon_huge_bytes();
    stats.anon_rss_bytes = anon_rss_bytes();
  }
  encode_own_part(stats, own_);
}

std::vector<MemoryNeed> event_building_memory(const Config& c, const RankRoles& roles) {
  std::vector<MemoryNeed> out;
  auto add = [&](const char* what, const char* keys, uint64_t bytes, bool block = true) {
    if (bytes > 0) out.push_back({what, keys, block ? mapped_bytes(bytes, c.page_size) : bytes});
  };
  if (roles.ru >= 0) {
    add("RU ring", "ru_buffer", ReadoutUnit::ring_bytes(c, roles.ru));
    add("RU checksum table", "ru_buffer", ReadoutUnit::checksum_table_bytes(c, roles.ru), false);
  }
  if (roles.bu >= 0)
    add("BU windows", "credits, nodes, fragment.size", BuilderUnit::memory_bytes(c));
  return out;
}

ProtocolFactory event_building_factory(std::string name, std::string summary,
                                       std::vector<std::string> keys,
                                       const ProtocolAgents& agents) {
  ProtocolFactory f;
  f.name = std::move(name);
  f.summary = std::move(summary);
  f.keys = std::move(keys);
  f.keys.emplace_back("background");  // congestors beside any event builder (apps/evbench/worker)
  f.uses_evm = agents.evm != nullptr;
  f.builds_events = true;
  f.sim_waits_for_any = true;
  f.rules = event_building_rules();
  if (f.uses_evm) f.rules.push_back(control_rule(agents.pulls));
  for (KeyRule& r : batch_rules(f.uses_evm)) f.rules.push_back(std::move(r));
  f.memory_needs = event_building_memory;
  f.resolve = [](const Config& config, const Driver& driver) {
    Config resolved = config;
    resolved.data_path = resolve_data_path(config, driver);
    return resolved;
  };
  f.create = [agents](const ProtocolContext& ctx) -> std::unique_ptr<ProtocolRun> {
    return std::make_unique<EventBuildingRun>(ctx, agents);
  };
  f.report = std::make_shared<EventBuildingReport>();
  return f;
}

}  // namespace evb
