// Registration of the `local` and `env` bootstraps (called by the generated
// register_builtin_plugins()).
#include <cstdlib>

#include "bootstrap/env_bootstrap.hpp"
#include "bootstrap/local_launcher.hpp"
#include "drivers/api/registry.hpp"

namespace evb {

void evb_register_bootstrap_local(PluginRegistry& registry) {
  BootstrapFactory f;
  f.name = "local";
  f.summary = "fork every rank on this host; the parent supervises and reaps them";
  f.launch = [](const Config& config, int nprocs, const WorkerFn& worker) {
    boot::LocalOptions options;
    options.tolerate_loss = config.on_failure == OnFailure::exclude;
    return boot::launch_local(config, nprocs, worker, options);
  };
  f.served_connections = [](int nprocs) { return nprocs; };  // the parent serves the rendezvous
  f.survives_rank_loss = true;
  registry.add_bootstrap(std::move(f));
}

void evb_register_bootstrap_env(PluginRegistry& registry) {
  BootstrapFactory f;
  f.name = "env";
  f.summary =
      "one rank per process, rank/size from EVBENCH_*/SLURM_*/OMPI_*/PMI_* and "
      "EVBENCH_RENDEZVOUS=host:port";
  f.launch = [](const Config& config, int nprocs, const WorkerFn& worker) {
    auto settings = boot::parse_env_settings([](const char* name) { return std::getenv(name); });
    return boot::launch_env(config, nprocs, worker, settings);
  };
  f.served_connections = [](int nprocs) {  // rank 0 serves the rendezvous
    auto settings = boot::parse_env_settings([](const char* name) { return std::getenv(name); });
    return settings.rank == 0 && settings.size > 1 ? nprocs : 0;
  };
  f.survives_rank_loss = true;  // not rank 0's loss: it serves the rendezvous
  registry.add_bootstrap(std::move(f));
}

}  // namespace evb
