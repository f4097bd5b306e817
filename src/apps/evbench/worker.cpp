#include "apps/evbench/worker.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "apps/evbench/report.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "core/host_load.hpp"
#include "core/placement.hpp"
#include "core/topology.hpp"
#include "protocols/api/poll_mode.hpp"
#include "protocols/api/protocol.hpp"
#include "protocols/background/congestor_run.hpp"

namespace evb {
namespace {

// Calls the driver's abandon() when it is destroyed by an exception (not on
// a normal return, where the driver is shut down in order).
class AbandonOnThrow {
 public:
  explicit AbandonOnThrow(Driver& driver)
      : driver_(driver), exceptions_(std::uncaught_exceptions()) {}
  ~AbandonOnThrow() {
    if (std::uncaught_exceptions() > exceptions_) driver_.abandon();
  }
  AbandonOnThrow(const AbandonOnThrow&) = delete;
  AbandonOnThrow& operator=(const AbandonOnThrow&) = delete;

 private:
  Driver& driver_;
  int exceptions_;
};

std::vector<std::string> peer_names(const Topology& t) {
  std::vector<std::string> names;
  for (int r = 0; r < t.processes(); ++r) {
    if (const CongestorRank* k = t.congestor(r)) {
      names.push_back("rank " + std::to_string(r) + " (background " + std::to_string(k->entry + 1) +
                      ", member " + std::to_string(k->member) + ")");
      continue;
    }
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

// The fully resolved configuration, as `#` comments ahead of the table.
void print_resolved_config(const Config& config) {
  std::string text = "# resolved configuration (" + config.source + "):\n";
  std::istringstream lines(to_yaml(config));
  for (std::string line; std::getline(lines, line);) text += "#   " + line + "\n";
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

int run_worker_with(const Topology& topo, const Config& config, const PluginRegistry& plugins,
                    const ProtocolRegistry& protocols, Bootstrap& boot, const RunOptions& options);

}  // namespace

std::string with_units(const std::string& what, int peer, const Topology& topo) {
  if (peer < 0 || peer >= topo.processes()) return what;
  const std::string name = "rank " + std::to_string(peer);
  size_t at = what.find(name);
  while (at != std::string::npos) {
    const size_t end = at + name.size();
    if (end >= what.size() || !std::isdigit(static_cast<unsigned char>(what[end]))) break;
    at = what.find(name, end);
  }
  if (at == std::string::npos || what.compare(at + name.size(), 2, " (") == 0) return what;
  return what.substr(0, at) + peer_names(topo)[peer] + what.substr(at + name.size());
}

int run_worker(const Config& config, const PluginRegistry& plugins,
               const ProtocolRegistry& protocols, Bootstrap& boot, const RunOptions& options) {
  const Topology topo = make_topology(config);
  try {
    return run_worker_with(topo, config, plugins, protocols, boot, options);
  } catch (const PeerError& e) {
    throw PeerError(e.peer(), with_units(e.what(), e.peer(), topo));
  }
}

namespace {

int run_worker_with(const Topology& topo, const Config& config, const PluginRegistry& plugins,
                    const ProtocolRegistry& protocols, Bootstrap& boot, const RunOptions& options) {
  if (boot.size() != topo.processes())
    throw ConfigError(
        "the run has " + std::to_string(boot.size()) + " processes but the config needs " +
        std::to_string(topo.processes()) + " (nodes=" + std::to_string(config.nodes) +
        ", layout=" + to_string(config.layout) + ", evm=" + to_string(config.evm) +
        (topo.congestors.empty() ? std::string()
                                 : ", background=" + std::to_string(topo.congestors.size())) +
        ")");
  LifecycleClock lifecycle(boot.launched_at());
  const int rank = boot.rank();
  const DriverFactory* factory = plugins.driver(config.driver);
  if (!factory) throw ConfigError("driver '" + config.driver + "' is not built in");
  const ProtocolFactory& protocol = protocols.of(config);
  DriverContext ctx{rank, boot.size(), boot.all_local(), &config};
  std::unique_ptr<Driver> driver = factory->create(ctx);
  const std::vector<std::string> addresses = boot.allgather(driver->local_address());
  driver->connect(addresses, topo.peers_of(rank));
  lifecycle.connected();

  // The configuration as this driver runs it (data_path resolved); reported
  // with the resolved configuration.
  const Config resolved = protocol.resolve(config, *driver);
  RankStats stats;
  stats.rank = rank;
  stats.host = hostname();
  stats.cpus = allowed_cpus();  // after binding, whoever bound it (results.placement)
  // poll_mode auto weighs the evbench processes on this host (by host name)
  // against its logical CPUs.
  const std::vector<std::string> hosts = boot.allgather(stats.host);
  const int local_processes = static_cast<int>(std::count(hosts.begin(), hosts.end(), stats.host));
  const PollMode mode = effective_poll_mode(config.poll_mode, local_processes,
                                            static_cast<int>(std::thread::hardware_concurrency()),
                                            driver->capabilities().can_block);
  stats.poll_mode = to_string(mode);
  const std::vector<std::string> names = peer_names(topo);
  // An out-of-sync fragment is kept next to the --json results (else here).
  // A scan's steps are announced on stderr: not under --quiet, nor under
  // sim (evbench sim's progress line says how far it got, in wall time).
  const ProtocolContext context{*driver,
                                boot,
                                topo,
                                resolved,
                                mode,
                                names,
                                stats,
                                options.quiet,
                                !options.quiet && options.simulated_platform.empty(),
                                std::filesystem::path(options.json_path).parent_path().string(),
                                options.simulated_platform.empty()};
  // A congestor rank (background:) runs its traffic instead of the protocol.
  const std::unique_ptr<ProtocolRun> run =
      topo.congestor(rank) ? make_congestor_run(context) : protocol.create(context);
  // If anything below throws, the driver lets go of the run's buffers
  // before the run frees them (this guard is destroyed first): closing a
  // libfabric tcp;ofi_rxm endpoint with receives still posted copied into
  // freed memory (a segfault on every rank that outlived a lost peer).
  const AbandonOnThrow abandon_on_throw(*driver);
  run->set_up();

  // --quiet: not echoed (the --json results hold it, `config --resolved` shows it).
  if (rank == 0 && !options.quiet) print_resolved_config(resolved);
  boot.barrier();
  lifecycle.ready();
  // The host's load around the data phase (results.host_load); not under
  // `evbench sim`, whose host is the simulator's, not the simulated cluster's.
  const bool measure_load = options.simulated_platform.empty();
  if (measure_load) stats.host_load.start = read_host_load();
  try {
    run->run();
  } catch (const Error& e) {
    // The other ranks are told before this rank's driver goes down (which
    // they would notice as a lost peer): the bootstrap reports the first
    // cause once (boot::run_worker), the ranks that stop because of it stay
    // quiet.
    boot.abort(e.what());
    throw;
  }
  if (measure_load) {
    stats.host_load.end = read_host_load();
    stats.host_load.measured = true;
  }
  run->finish(stats);
  boot.barrier();
  lifecycle.data_ended();  // on every rank
  driver->shutdown();
  lifecycle.shut_down();
  stats.lifecycle = lifecycle.phases();
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) == 0)
    stats.peak_rss_bytes = static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux: KiB
  const std::vector<std::string> all = boot.gather(stats.serialize());
  if (rank != 0) return kExitOk;
  std::vector<RankStats> ranks;
  std::vector<RankStats> congestors;  // read by their own report, not the protocol's
  // Under on_failure exclude a lost rank contributes nothing.
  for (const auto& s : all)
    if (!s.empty()) {
      RankStats r = RankStats::deserialize(s);
      (topo.congestor(r.rank) ? congestors : ranks).push_back(std::move(r));
    }
  DriverProbe probe = factory->probe ? factory->probe() : DriverProbe{};
  probe.variant = driver->name();
  // The data path names the variant only where the driver could do both.
  probe.run_variant = driver->variant();
  probe.run_settings = driver->applied_settings();
  if (driver->capabilities().rdma_write)
    probe.run_variant += std::string(" ") + to_string(resolved.data_path);
  return report_run(protocol, resolved, topo, ranks, options, probe,
                    merge_background(resolved, topo, congestors));
}

}  // namespace
}  // namespace evb
