#include "protocols/event_building/event_building_rank.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "protocols/common/windows.hpp"
#include "protocols/event_building/event_building_live.hpp"
#include "protocols/event_building/ru_agent.hpp"
#include "protocols/monitor/monitor_reporter.hpp"
#include "units/window_layout.hpp"

namespace evb {
namespace {

// Refuses, before anything is sent, a run whose messages or tags the driver
// cannot carry: the largest fragment (a window) and every data tag.
void check_driver_limits(const Config& c, const Driver& driver) {
  const Capabilities caps = driver.capabilities();
  const WindowLayout layout(c);
  size_t largest = c.command_size;
  for (int r = 0; r < c.nodes; ++r) largest = std::max(largest, layout.size(r));
  if (largest > caps.max_message)
    throw ConfigError("fragment.size / fragment.max_size: the largest fragment message is " +
                      std::to_string(largest) + " B, but driver " + driver.name() +
                      " carries at most " + std::to_string(caps.max_message) + " B");
  const uint64_t top_tag = data_tag(static_cast<uint32_t>(c.credits - 1));
  if (caps.tag_bits < 64 && top_tag >> caps.tag_bits)
    throw ConfigError("credits: " + std::to_string(c.credits) + " slots need data tags up to " +
                      std::to_string(top_tag) + ", but driver " + driver.name() + " matches " +
                      std::to_string(caps.tag_bits) + " tag bits");
}

}  // namespace

void build_event_building_rank(EventBuildingRank& out, Engine& engine, Bootstrap& boot,
                               const Topology& topo, EventBuildingStats& stats, bool quiet,
                               const ProtocolAgents& make, const std::string& keep_dir,
                               MonitorState* monitor, const MonitorLabels& labels) {
  const Config& config = engine.config();
  Driver& driver = engine.driver();
  const RankRoles& me = topo.ranks.at(engine.rank());
  const bool write = config.data_path == DataPath::write;
  check_driver_limits(config, driver);
  if (me.ru >= 0) {
    out.ru = std::make_unique<ReadoutUnit>(me.ru, config);
    out.ru_memory = driver.register_memory(out.ru->memory().data(), out.ru->memory().size());
  }
  if (me.bu >= 0) {
    // The windows peers write into come from the driver (allocate_memory),
    // which may place them where its transports reach them best.
    out.bu_memory = driver.allocate_memory(BuilderUnit::memory_bytes(config), config.page_size);
    out.bu = std::make_unique<BuilderUnit>(me.bu, config,
                                           reinterpret_cast<uint8_t*>(out.bu_memory->base()));
    out.fus = std::make_unique<FilterUnits>(me.bu, config);
  }
  if (write) out.windows = exchange_windows(boot, driver, topo, out.bu_memory.get());
  // faults: {desync: ruN}: the injector shifts this rank's RU when it plays.
  if (out.ru && engine.faults())
    engine.faults()->on_desync([ru = out.ru.get()](int64_t by) { ru->desync(by); });
  ReportedUnits reported;
  if (out.ru) {
    out.agents.push_back(std::make_unique<RuAgent>(engine, *out.ru, *out.ru_memory, topo, stats,
                                                   write ? &out.windows : nullptr));
    reported.ru_agent = out.agents.back().get();
    reported.ru = out.ru.get();
  }
  if (out.bu) {
    // Without an EVM, BU 0 prints the live line.
    const bool live = !quiet && topo.evm_rank < 0 && me.bu == 0;
    auto bu = make.bu(engine, *out.bu, *out.fus, *out.bu_memory, topo, stats, write, live);
    bu->keep_fragments_in(keep_dir);
    // The own RU's fragment in place: PULL-style requesting only, and not
    // where a fragment must be copied to be corrupted (fault.corrupt) or kept
    // by the RU until the EVM acknowledges it (on_failure exclude).
    if (out.ru && make.pulls && config.local_fragment == LocalFragment::in_place &&
        config.on_failure == OnFailure::abort && config.corrupt_probability == 0)
      bu->serve_local_in_place(*out.ru);
    reported.bu_agent = bu.get();
    reported.bu = out.bu.get();
    reported.fus = out.fus.get();
    out.agents.push_back(std::move(bu));
  }
  EvmAgent* evm = nullptr;
  if (me.evm) {
    if (!make.evm) throw Error("protocol " + config.protocol + " has no EVM");
    auto agent = make.evm(engine, topo, stats, !quiet);
    evm = agent.get();
    out.agents.push_back(std::move(agent));
  }
  if (config.monitor.port != 0 || !config.control.empty()) {
    out.agents.push_back(std::make_unique<MonitorReporter>(
        engine, topo, std::make_unique<EventBuildingReporterView>(engine, topo, stats, reported)));
    if (evm && monitor)
      out.agents.push_back(std::make_unique<MonitorHub>(
          engine, topo, std::make_unique<EventBuildingHubView>(engine, topo, *evm, stats), *monitor,
          labels, quiet));
  }
}

}  // namespace evb
