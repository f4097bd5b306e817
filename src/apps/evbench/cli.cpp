#include "apps/evbench/cli.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "apps/evbench/cli_args.hpp"
#include "apps/evbench/credit_ranks.hpp"
#include "apps/evbench/credit_sim.hpp"
#include "apps/evbench/default_config.hpp"
#include "apps/evbench/memory_plan.hpp"
#include "apps/evbench/open_files_check.hpp"
#include "apps/evbench/output_check.hpp"
#include "apps/evbench/run_options.hpp"
#include "apps/evbench/sim_calibrate.hpp"
#include "apps/evbench/sim_command.hpp"
#include "apps/evbench/topo_command.hpp"
#include "apps/evbench/topology_ring.hpp"
#include "apps/evbench/versions.hpp"
#include "apps/evbench/worker.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "core/topology.hpp"
#include "drivers/api/registry.hpp"
#include "protocols/api/protocol_registry.hpp"
#include "sim/exec/credit_driver.hpp"

namespace evb {
namespace {

const char* kUsage = R"(usage: evbench <command> [options]

Commands:
  run [CONFIG] [--set KEY=VALUE]... [--json FILE] [--quiet]
        Run an evaluation. Without CONFIG: the embedded configs/default.yaml
        (local bootstrap, tcp, 4 nodes, rubu, pull, barrel, 3 s).
        --json FILE: the results document (its directory must exist).
        --quiet (-q): for scripts: no live rate lines or progress, no
        resolved configuration, no per-node rows (all in --json); the
        result summary, # OK / # FAILED, warnings and errors stay.
  sim [CONFIG] --platform PLATFORM [--model fluid|credit] [--order FILE]
      [--smpi-factors default|one] [--calibrate MEASURED.json] [--calibration FILE]
      [--set KEY=VALUE]... [--json FILE] [--quiet]
        Run the evaluation on a simulated cluster: the same units and
        protocols on PLATFORM's fat tree and routing, nodes taken from the
        platform's host order or --order's. --model fluid (the default):
        SimGrid SMPI's max-min sharing over the mpi driver; needs the SMPI
        build (build-sim/); --smpi-factors one sets SMPI's bandwidth and
        latency factors to 1 (default: SMPI's calibration, 0.9355 of a link
        for messages above 64 KiB). --model credit: evbench's lossless
        model (links with credits, finite switch buffers, head-of-line
        blocking; the platform's network: section), every rank in this
        process on a virtual clock. --calibrate (credit): fit the links'
        efficiency and a per-message overhead to a measured run's results
        JSON, and charge the hosts the CPU per fragment at the RU and BU it
        recorded (repeated: the links between switches get their own efficiency,
        fitted to the later runs' rates they limit), write them with their
        origin to --calibration FILE (default calibration.yaml) and use
        them; --calibration FILE alone applies such a file. See
        docs/SCALE.md.
  validate [CONFIG] [--set KEY=VALUE]...
        Check a configuration without running it (without CONFIG: the
        embedded default): every key, the rules between keys, the driver's
        option values against the names its library knows (a transport or
        device this host lacks is left to `run`, which checks it before any
        rank starts), and the memory the ranks of this host would allocate
        against what it has available.
  drivers [--json]
        List the drivers built into this evbench and whether each can run here
        (--json: a JSON array on stdout with the variants usable and not here).
  topo PLATFORM [--order FILE] [--nodes N] [--json FILE] [--write-order FILE]
        [--keep-hosts] [--seed S] [--iterations K] [--quiet]  |  topo --reference
        |  topo PLATFORM --write-ibnetdiscover FILE
        Barrel-shift link-conflict scan of a platform (configs/platforms/,
        docs/TOPOLOGY.md): flows per inter-switch link at every shift, the
        worst link per step, and a proposed rank order (or node selection
        among the hosts of --order / the platform) that lowers the maximum.
        --reference prints the platform file's key table (Markdown).
        --write-ibnetdiscover writes the platform's cabling as an ibnetdiscover
        topology (ibsim's net file; scripts/opensm-routes.sh) and stops.
  config --explain | --markdown | --json | --resolved [CONFIG] [--set KEY=VALUE]...
        Describe every configuration key (text, Markdown, or JSON for tools
        such as evbench-scan: type, default, unit, range, choices, and the
        size and duration units), or print the fully resolved configuration.
  --version, --help

Exit codes: 0 success; 1 runtime failure (peer lost, driver error, timeout,
worker died); 2 usage or configuration error; 3 integrity errors (incomplete,
lost, built twice, duplicate, corrupt or out-of-sync events; injected
corruption that was all detected does not count); 130 interrupted.
)";

// True when a launcher (srun, mpirun, a script setting EVBENCH_RANK) says
// this process is not the first of its job: every rank loads the same
// configuration, so only the first one prints its warnings.
bool later_rank_of_a_launch() {
  for (const char* var : {"EVBENCH_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    const char* v = std::getenv(var);
    if (v && *v) return std::strcmp(v, "0") != 0;
  }
  return false;
}

Config load(const Args& a, const Plugins& r) {
  // The embedded default's keys are defaults: only the user's draw warnings
  // and take the blame for a broken rule.
  Config c = a.config.empty()
                 ? load_default_config_text(default_config_yaml(), "configs/default.yaml", a.sets,
                                            plugin_keys(r.drivers, r.protocols))
                 : load_config(a.config, a.sets, plugin_keys(r.drivers, r.protocols));
  attach_topology_ring(c);
  check_prediction_platform(c, r.protocols.of(c).steps(c));
  // A simulated run's ranks load the resolved config `evbench sim` already
  // checked and warned about.
  if (later_rank_of_a_launch() || !a.simulated_on.empty()) return c;
  for (const auto& w : c.warnings) std::fprintf(stderr, "evbench: warning: %s\n", w.c_str());
  return c;
}

// driver_options values against what the driver's library offers (UCX
// transports, libfabric providers, RDMA devices; mpi's launcher), all bad
// keys at once, before anything starts. `validate` judges names only (it may
// run on a login node unlike the compute nodes: a transport without a device
// there is not an error); a run also what this host can serve.
void check_driver_options(const Config& config, const Plugins& r, OptionCheck scope) {
  const DriverFactory* f = r.drivers.driver(config.driver);
  if (!f || !f->check_options) return;
  std::string all;
  for (const std::string& problem : f->check_options(config, scope))
    all += (all.empty() ? "" : "\n") + problem;
  if (!all.empty()) throw ConfigError(all);
}

int cmd_run(const Args& a, const Plugins& r, int argc, char** argv) {
  // Rank 0 writes the results (a simulated run's --json was checked by sim).
  if (!later_rank_of_a_launch() && a.simulated_on.empty()) check_output_path("--json", a.json);
  const Config config = load(a, r);
  const Topology topo = make_topology(config);
  const BootstrapFactory* boot = r.drivers.bootstrap(config.bootstrap);
  if (!boot) throw ConfigError("bootstrap '" + config.bootstrap + "' is not built in");
  const ProtocolFactory& protocol = r.protocols.of(config);
  // What the driver's library reads once at its first use (the probe's),
  // sized to the ranks on this host; the forked ranks inherit it.
  if (const DriverFactory* f = r.drivers.driver(config.driver); f && f->prepare) {
    const auto env = [](const char* name) { return std::getenv(name); };
    f->prepare(config,
               static_cast<int>(
                   ranks_on_this_host(config, topo, env, protocol.memory_needs).ranks.size()));
  }
  // A driver that cannot run here (no device, no provider) fails before any
  // rank starts, with the reason `evbench drivers` gives.
  if (const DriverFactory* f = r.drivers.driver(config.driver); f && f->probe) {
    const DriverProbe p = f->probe();
    if (!p.can_run)
      throw ConfigError("driver '" + config.driver + "' cannot run here: " + p.reason);
  }
  if (a.simulated_on.empty()) check_driver_options(config, r, OptionCheck::here);
  // What this host's ranks allocate must fit (SMPI shares payload memory).
  if (a.simulated_on.empty()) check_host_memory(config, topo, protocol.memory_needs);
  // Sockets for N - 1 peers and the rendezvous: the soft limit raised or
  // the run refused here, before any rank starts.
  if (const DriverFactory* f = r.drivers.driver(config.driver); f && a.simulated_on.empty())
    check_open_files(config, topo, *f, *boot);
  RunOptions opts;
  opts.json_path = a.json;
  opts.quiet = a.quiet;
  opts.simulated_platform = a.simulated_on;
  for (int i = 0; i < argc; ++i) opts.argv.push_back(argv[i]);
  const WorkerFn worker = [&](Bootstrap& b) {
    return run_worker(config, r.drivers, r.protocols, b, opts);
  };
  return boot->launch(config, topo.processes(), worker);
}

// The simulation runs the mpi driver and bootstrap, with what sim sets
// (sim_command.hpp) added to the user's --set overrides.
// --model credit: the ranks in this process over the credit model's network
// (driver credit, known to the loader for this command only).
int cmd_sim_credit(Args a, const Plugins& r, int argc, char** argv) {
  if (!a.smpi_factors.empty())
    throw UsageError("sim: --smpi-factors is the fluid model's (SMPI); --model credit has none");
  if (!a.calibrate.empty())
    check_output_path("--calibration",
                      a.calibration.empty() ? kDefaultCalibrationFile : a.calibration);
  Plugins sim = r;
  simexec::World* none = nullptr;
  sim.drivers.add_driver(simexec::credit_driver_factory(&none));
  add_credit_overrides(a.sets);
  const Config asked = load(a, sim);
  add_sim_common_overrides(a.sets, asked, sim.protocols.of(asked));
  const Config config = load(a, sim);
  SimRequest req;
  req.platform = a.platform;
  req.order = a.order;
  req.json = a.json;
  req.quiet = a.quiet;
  req.calibrate = a.calibrate;
  req.calibration = a.calibration;
  for (int i = 0; i < argc; ++i) req.argv.push_back(argv[i]);
  return run_sim_credit(config, req, sim);
}

int cmd_sim(Args a, const Plugins& r, int argc, char** argv) {
  check_output_path("--json", a.json);
  if (a.model == "credit") return cmd_sim_credit(std::move(a), r, argc, argv);
  if (!a.calibrate.empty() || !a.calibration.empty())
    throw UsageError(std::string("sim: ") +
                     (a.calibrate.empty() ? "--calibration" : "--calibrate") +
                     " needs --model credit (the fluid model is not calibrated yet)");
  add_sim_mpi(a.sets);
  const Config asked = load(a, r);
  const ProtocolFactory& protocol = r.protocols.of(asked);
  add_sim_overrides(a.sets, asked, protocol);
  const Config config = load(a, r);
  check_driver_options(config, r, OptionCheck::here);
  SimRequest req;
  req.platform = a.platform;
  req.order = a.order;
  req.json = a.json;
  req.quiet = a.quiet;
  req.unit_factors = a.smpi_factors == "one";
  return run_sim(config, req, protocol);
}

// Without CONFIG: the embedded default, as `run` would use it.
int cmd_validate(const Args& a, const Plugins& r) {
  const Config config = load(a, r);
  const Topology topo = make_topology(config);
  check_driver_options(config, r, OptionCheck::names);
  check_host_memory(config, topo, r.protocols.of(config).memory_needs);
  const std::string name = a.config.empty() ? "configs/default.yaml (embedded)" : a.config;
  std::printf("%s: valid (%s over %s, %d nodes, %d processes)\n", name.c_str(),
              config.protocol.c_str(), config.driver.c_str(), config.nodes, topo.processes());
  return kExitOk;
}

DriverProbe probe_driver(const DriverFactory& f) {
  DriverProbe p;
  try {
    p = f.probe ? f.probe() : DriverProbe{true, "", "", ""};
  } catch (const std::exception& e) {
    p.can_run = false;
    p.reason = e.what();
  }
  return p;
}

// `evbench drivers --json`: one object per built driver, for tools
// (evbench-scan lists the variants that cannot run here, with the reason).
std::string drivers_json(const Plugins& r) {
  JsonWriter w;
  w.begin_array();
  for (const auto& [name, f] : r.drivers.drivers()) {
    const DriverProbe p = probe_driver(f);
    w.begin_object();
    w.value("driver", name);
    w.value("can_run", p.can_run);
    w.value("library", p.library_version);
    w.value("reason", p.reason);
    w.value("details", p.details);
    w.value("summary", f.summary);
    w.begin_array("variants_usable");
    for (const std::string& v : p.variants_usable) w.value("", v);
    w.end_array();
    w.begin_array("variants_not_here");
    for (const auto& [variant, why] : p.variants_not_here) {
      w.begin_object();
      w.value("name", variant);
      w.value("reason", why);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
  return w.str() + "\n";
}

int cmd_drivers(const Args& a, const Plugins& r) {
  if (a.json_reference) {
    std::cout << drivers_json(r);
    return kExitOk;
  }
  std::printf("# %-10s %-8s %-40s %s\n", "driver", "can run", "library", "notes");
  for (const auto& [name, f] : r.drivers.drivers()) {
    const DriverProbe p = probe_driver(f);
    std::string notes = p.can_run ? f.summary : p.reason;
    if (!p.details.empty()) notes += " [" + p.details + "]";
    std::printf("  %-10s %-8s %-40s %s\n", name.c_str(), p.can_run ? "yes" : "no",
                p.library_version.c_str(), notes.c_str());
  }
  std::printf("# bootstraps:");
  for (const auto& [name, f] : r.drivers.bootstraps()) std::printf(" %s", name.c_str());
  std::printf("\n");
  return kExitOk;
}

int cmd_config(const Args& a, const Plugins& r) {
  if (a.markdown) {
    std::cout << reference_markdown(plugin_keys(r.drivers, r.protocols));
  } else if (a.json_reference) {
    std::cout << reference_json(plugin_keys(r.drivers, r.protocols));
  } else if (a.resolved) {
    std::cout << to_yaml(load(a, r));
  } else if (a.explain) {
    std::cout << explain_text(plugin_keys(r.drivers, r.protocols));
  } else {
    throw UsageError("config: choose --explain, --markdown, --json or --resolved");
  }
  return kExitOk;
}

// One "evbench: " line per line of the message (a configuration with
// several bad keys reports them all, one per line).
void print_error(const std::string& message) {
  std::istringstream lines(message);
  for (std::string line; std::getline(lines, line);)
    std::fprintf(stderr, "evbench: %s\n", line.c_str());
}

}  // namespace

int cli_main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  Plugins registry;
  register_builtin_plugins(registry.drivers);
  register_builtin_protocols(registry.protocols);
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  const std::string command = argv[1];
  try {
    if (command == "--help" || command == "-h" || command == "help") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    if (command == "--version") {
      std::printf("evbench %s (%s)\n", evbench_version().c_str(), evbench_git_sha().c_str());
      return kExitOk;
    }
    check_command(command);
    if (command == "topo") return topo_command(argc, argv, 2);
    const Args a = parse_args(std::vector<std::string>(argv + 2, argv + argc), command);
    if (a.help) {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    if (command == "run") return cmd_run(a, registry, argc, argv);
    if (command == "sim") return cmd_sim(a, registry, argc, argv);
    if (command == "validate") return cmd_validate(a, registry);
    if (command == "drivers") return cmd_drivers(a, registry);
    if (command == "config") return cmd_config(a, registry);
    throw std::logic_error("command '" + command + "' is in cli_commands() but has no handler");
  } catch (const ConfigError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const UsageError& e) {
    print_error(e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    print_error(e.what());
    return kExitRuntime;
  }
}

}  // namespace evb
