#include "apps/evbench/worker.hpp"

#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

#include "apps/evbench/report.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "core/topology.hpp"
#include "protocols/bu_agent.hpp"
#include "protocols/engine.hpp"
#include "protocols/evm_agent.hpp"
#include "protocols/microbench.hpp"
#include "protocols/ru_agent.hpp"
#include "units/filter_units.hpp"

namespace evb {
namespace {

std::vector<std::string> peer_names(const Topology& t) {
  std::vector<std::string> names;
  for (int r = 0; r < t.nprocs; ++r) {
    std::string roles;
    const RankRoles& x = t.ranks[r];
    if (x.ru >= 0) roles += "RU " + std::to_string(x.ru);
    if (x.bu >= 0) roles += std::string(roles.empty() ? "" : ", ") + "BU " + std::to_string(x.bu);
    if (x.evm) roles += std::string(roles.empty() ? "" : ", ") + "EVM";
    names.push_back("rank " + std::to_string(r) + " (" + roles + ")");
  }
  return names;
}

std::string hostname() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

// Units and agents hosted by one rank, kept alive for the run.
struct RankUnits {
  std::unique_ptr<ReadoutUnit> ru;
  std::unique_ptr<BuilderUnit> bu;
  std::unique_ptr<FilterUnits> fus;
  std::vector<std::unique_ptr<Agent>> agents;
  std::vector<MemoryRegion> regions;
};

// The fully resolved configuration, as `#` comments ahead of the table.
void print_resolved_config(const Config& config) {
  std::string text = "# resolved configuration (" + config.source + "):\n";
  std::istringstream lines(to_yaml(config));
  for (std::string line; std::getline(lines, line);) text += "#   " + line + "\n";
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace

int run_worker(const Config& config, const PluginRegistry& plugins, Bootstrap& boot,
               const RunOptions& options) {
  const Topology topo = make_topology(config);
  if (boot.size() != topo.nprocs)
    throw ConfigError(
        "the run has " + std::to_string(boot.size()) + " processes but the config needs " +
        std::to_string(topo.nprocs) + " (nodes=" + std::to_string(config.nodes) +
        ", layout=" + to_string(config.layout) + ", evm=" + to_string(config.evm) + ")");
  const int rank = boot.rank();
  const DriverFactory* factory = plugins.driver(config.driver);
  if (!factory) throw ConfigError("driver '" + config.driver + "' is not built in");
  DriverContext ctx{rank, boot.size(), boot.all_local(), &config};
  std::unique_ptr<Driver> driver = factory->create(ctx);
  const std::vector<std::string> addresses = boot.allgather(driver->local_address());
  driver->connect(addresses, topo.peers_of(rank));

  const RankRoles& me = topo.ranks[rank];
  RankStats stats;
  stats.rank = rank;
  stats.host = hostname();
  const PollMode mode = effective_poll_mode(config.poll_mode, boot.all_local() ? topo.nprocs : 1,
                                            driver->capabilities().can_block);
  Engine engine(*driver, rank, config, mode, peer_names(topo));
  RankUnits units;
  if (is_event_builder(config.protocol)) {
    if (me.ru >= 0) {
      units.ru = std::make_unique<ReadoutUnit>(me.ru, config);
      units.regions.push_back(
          driver->register_memory(units.ru->memory().data(), units.ru->memory().size()));
      units.agents.push_back(std::make_unique<RuAgent>(engine, *units.ru, topo, stats));
    }
    if (me.bu >= 0) {
      units.bu = std::make_unique<BuilderUnit>(me.bu, config);
      units.fus = std::make_unique<FilterUnits>(me.bu, config);
      units.regions.push_back(
          driver->register_memory(units.bu->memory().data(), units.bu->memory().size()));
      units.agents.push_back(
          std::make_unique<BuAgent>(engine, *units.bu, *units.fus, topo, stats,
                                    !options.quiet && topo.evm_rank < 0 && me.bu == 0));
    }
    if (me.evm)
      units.agents.push_back(std::make_unique<EvmAgent>(engine, topo, stats, !options.quiet));
  }

  if (rank == 0) print_resolved_config(config);
  boot.barrier();
  std::string failure;
  try {
    if (is_event_builder(config.protocol))
      engine.run();
    else
      run_microbench(*driver, boot, topo, config, mode, peer_names(topo), stats);
  } catch (const Error& e) {
    failure = e.what();
  }
  if (units.bu) {
    stats.integrity = units.bu->integrity();
    stats.fu_processed = units.fus->processed();
    stats.fu_accepted = units.fus->accepted();
  }
  if (!failure.empty()) {
    // Peers notice through their driver (connection loss) or the bootstrap.
    std::fprintf(stderr, "evbench: %s\n", failure.c_str());
    boot.abort(failure);
    return kExitRuntime;
  }
  boot.barrier();
  for (const auto& r : units.regions) driver->deregister_memory(r);
  driver->shutdown();
  const std::vector<std::string> all = boot.gather(stats.serialize());
  if (rank != 0) return kExitOk;
  std::vector<RankStats> ranks;
  for (const auto& s : all) ranks.push_back(RankStats::deserialize(s));
  const DriverProbe probe = factory->probe ? factory->probe() : DriverProbe{};
  return report_run(config, topo, ranks, options, probe);
}

}  // namespace evb
