#include "apps/evbench/credit_ranks.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "apps/evbench/worker.hpp"
#include "core/error.hpp"
#include "core/topology.hpp"
#include "sim/exec/credit_driver.hpp"
#include "sim/exec/sim_bootstrap.hpp"

namespace evb {

namespace {

// Each rank's fiber stack: the worker, the engine, the report (rank 0).
constexpr size_t kRankStack = 1 << 20;

int exit_code(const std::exception& e) {
  return dynamic_cast<const ConfigError*>(&e) || dynamic_cast<const UsageError*>(&e) ? kExitUsage
                                                                                     : kExitRuntime;
}

}  // namespace

int run_credit_ranks(const Config& config, const Plugins& plugins, simexec::Network& network,
                     const std::vector<int>& rank_host, const RunOptions& options,
                     FragmentCpuCost cpu) {
  PluginRegistry drivers = plugins.drivers;
  simexec::World* world_slot = nullptr;
  drivers.add_driver(simexec::credit_driver_factory(&world_slot));
  simexec::World world(rank_host, network);
  world_slot = &world;
  if (cpu.ru_ns > 0 || cpu.bu_ns > 0) world.set_fragment_cpu(cpu.ru_ns, cpu.bu_ns);
  const int n = world.ranks();
  std::vector<int> codes(static_cast<size_t>(n), kExitRuntime);
  bool reported = false;
  world.run(
      [&](int r) {
        simexec::SimBootstrap boot(world, r);
        try {
          codes[r] = run_worker(config, drivers, plugins.protocols, boot, options);
        } catch (const simexec::WorldAborted&) {
          codes[r] = kExitRuntime;  // stopped by another rank's failure, reported there
        } catch (const std::exception& e) {
          codes[r] = exit_code(e);
          world.abort(e.what());
          if (!reported) {
            reported = true;
            const std::string what = e.what();
            const std::string tag = "rank " + std::to_string(r) + ": ";
            std::fprintf(stderr, "evbench: %s%s\n", what.rfind(tag, 0) == 0 ? "" : tag.c_str(),
                         what.c_str());
          }
        }
      },
      kRankStack);
  if (codes[0] != kExitOk) return codes[0];
  return *std::max_element(codes.begin(), codes.end());
}

void add_credit_overrides(std::vector<std::string>& sets) {
  auto user_set = [&](const std::string& key) {
    return std::any_of(sets.begin(), sets.end(),
                       [&](const std::string& s) { return s.rfind(key + "=", 0) == 0; });
  };
  for (const auto& s : sets)
    if (s.rfind("driver=", 0) == 0 && s != "driver=credit")
      throw ConfigError(
          "--set " + s +
          ": sim --model credit runs its own network (driver credit); drop the --set");
  sets.push_back("driver=credit");
  // Idle ranks block on the virtual clock; a polling rank would hold it still.
  if (!user_set("poll_mode")) sets.push_back("poll_mode=block");
  if (!user_set("page_size")) sets.push_back("page_size=normal");
}

}  // namespace evb
