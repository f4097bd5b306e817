#pragma once
// Registry of drivers and bootstraps, filled at start-up by the generated
// register_builtin_plugins() (cmake/EvbenchPlugins.cmake). Owned by main()
// and passed down; there is no global registry. In evbench the functions
// that need a driver's library come from a module opened on first use
// (plugin_entry.hpp).
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"
#include "drivers/api/bootstrap.hpp"
#include "drivers/api/driver.hpp"

namespace evb {

// Whether a driver can run on this machine, and why not.
struct DriverProbe {
  bool can_run = false;
  std::string reason;           // when !can_run: e.g. "no RDMA device found"
  std::string library_version;  // e.g. "libfabric 1.17.0"
  std::string details;          // extra line for `evbench drivers` (thread level, providers)
  std::string variant;          // after a run: Driver::name() of what ran ("libfabric/shm")
  // After a run: the variant that ran, with the transport MPI chose and the
  // data path where the driver could do both ("ucx/sm write", "mpi/vader").
  std::string run_variant;
  std::string run_settings;  // after a run: Driver::applied_settings()
  // Variants (libfabric providers, UCX transports) this machine can run, and
  // those it cannot with the reason, where the probe knows them.
  std::vector<std::string> variants_usable;
  std::vector<std::pair<std::string, std::string>> variants_not_here;  // name, reason
};

// What a driver's option check judges. `names`: values the library does not
// know at all (a typo, wrong on every host): `evbench validate` and
// `evbench-scan check`, which may run on a login node unlike the compute
// nodes. `here`: also what this host cannot serve (no device for a UCX
// transport, a libfabric provider without a usable interface, a verbs device
// or port): before a run starts here.
enum class OptionCheck { names, here };

// What a driver gets when it is created.
struct DriverContext {
  int rank = 0;
  int size = 1;
  bool all_local = true;
  const Config* config = nullptr;
};

struct DriverFactory {
  std::string name;
  std::string summary;           // one line
  std::vector<KeySpec> options;  // driver_options.* keys (name relative)
  // What the driver will report as capabilities() once started with the
  // config's driver_options, answered by its description (no library
  // needed): `evbench validate` refuses fragment layouts, data_path write,
  // protocol alltoall and on_failure exclude the driver cannot carry. A field
  // only the library knows at run time holds the most it can be
  // (core/capabilities.hpp: max_segments 0 = not known before start).
  std::function<Capabilities(const Config&)> query;
  // probe, create and check_options need the driver's library: bound by
  // plugin_entry.hpp's bind_driver / bind_driver_module.
  std::function<DriverProbe()> probe;
  std::function<std::unique_ptr<Driver>(const DriverContext&)> create;
  // driver_options values checked against what the library offers (UCX
  // transports, libfabric providers, devices; OptionCheck says whether only
  // names or also this host), before any rank starts: one message per bad
  // key naming it; empty when all is well. May be empty.
  std::function<std::vector<std::string>(const Config&, OptionCheck)> check_options;
  // Process-wide settings the library reads once, at its first use
  // (environment variables): called before the probe or any rank starts,
  // with the number of the run's ranks on this host. May be empty.
  std::function<void(const Config&, int local_ranks)> prepare;
};

// The function a rank runs once its bootstrap is up; returns an exit code.
using WorkerFn = std::function<int(Bootstrap&)>;

struct BootstrapFactory {
  std::string name;
  std::string summary;
  // Starts (local) or joins (env, mpi) the `nprocs` ranks of the run, calls
  // `worker` in each rank of this process, returns this process's exit code.
  std::function<int(const Config&, int nprocs, const WorkerFn& worker)> launch;
  // Whether the other ranks go on when one dies (on_failure: exclude); when
  // not, `loss_note` says what happens instead (shown by validate).
  bool survives_rank_loss = false;
  std::string loss_note;
  // Connections the process that launches (or is) a rank serves for the
  // bootstrap (the rendezvous: one per rank), counted in its open-file need
  // before start; empty: none.
  std::function<int(int nprocs)> served_connections;
};

class PluginRegistry {
 public:
  void add_driver(DriverFactory f) { drivers_[f.name] = std::move(f); }
  void add_bootstrap(BootstrapFactory f) { bootstraps_[f.name] = std::move(f); }
  const DriverFactory* driver(const std::string& name) const {
    auto it = drivers_.find(name);
    return it == drivers_.end() ? nullptr : &it->second;
  }
  const BootstrapFactory* bootstrap(const std::string& name) const {
    auto it = bootstraps_.find(name);
    return it == bootstraps_.end() ? nullptr : &it->second;
  }
  // For binding a registered plug-in's library half (plugin_entry.hpp).
  DriverFactory* driver_to_bind(const std::string& name) {
    auto it = drivers_.find(name);
    return it == drivers_.end() ? nullptr : &it->second;
  }
  BootstrapFactory* bootstrap_to_bind(const std::string& name) {
    auto it = bootstraps_.find(name);
    return it == bootstraps_.end() ? nullptr : &it->second;
  }
  const std::map<std::string, DriverFactory>& drivers() const { return drivers_; }
  const std::map<std::string, BootstrapFactory>& bootstraps() const { return bootstraps_; }

 private:
  std::map<std::string, DriverFactory> drivers_;
  std::map<std::string, BootstrapFactory> bootstraps_;
};

// Generated: registers every driver and bootstrap that was built.
void register_builtin_plugins(PluginRegistry& registry);

}  // namespace evb
