#include "bootstrap/env_bootstrap.hpp"

#include <cstdlib>
#include <memory>

#include "bootstrap/rank_runner.hpp"
#include "bootstrap/rendezvous_client.hpp"
#include "bootstrap/rendezvous_server.hpp"
#include "bootstrap/rendezvous_watch.hpp"
#include "bootstrap/socket_util.hpp"
#include "bootstrap/solo_bootstrap.hpp"
#include "core/error.hpp"

namespace evb::boot {

namespace {

struct VarPair {
  const char* rank;
  const char* size;
};
constexpr VarPair kPairs[] = {
    {"EVBENCH_RANK", "EVBENCH_SIZE"},
    {"SLURM_PROCID", "SLURM_NTASKS"},
    {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
    {"PMI_RANK", "PMI_SIZE"},
};

int parse_int(const char* var, const char* text) {
  std::string s = text;
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
    throw ConfigError(std::string(var) + "=\"" + s + "\" is not a non-negative integer");
  return std::stoi(s);
}

}  // namespace

EnvSettings parse_env_settings(const EnvLookup& lookup) {
  EnvSettings s;
  for (const auto& p : kPairs) {
    const char* r = lookup(p.rank);
    const char* n = lookup(p.size);
    if (!r && !n) continue;
    if (!r || !n)
      throw ConfigError(std::string(r ? p.rank : p.size) + " is set but " + (r ? p.size : p.rank) +
                        " is not");
    s.rank = parse_int(p.rank, r);
    s.size = parse_int(p.size, n);
    s.size_var = p.size;
    if (s.size < 1) throw ConfigError(std::string(p.size) + "=" + n + " must be at least 1");
    if (s.rank >= s.size)
      throw ConfigError(std::string(p.rank) + "=" + r + " is out of range for " + p.size + "=" + n);
    break;
  }

  const char* rv = lookup("EVBENCH_RENDEZVOUS");
  if (rv && *rv) {
    split_host_port(rv, "EVBENCH_RENDEZVOUS", &s.host, &s.port);
  } else if (s.size > 1) {
    throw ConfigError("EVBENCH_RENDEZVOUS is not set: with " + s.size_var + "=" +
                      std::to_string(s.size) +
                      " every rank needs the host:port where rank 0 serves the rendezvous "
                      "(e.g. EVBENCH_RENDEZVOUS=$(hostname):7777)");
  }

  // The token gates the run: it must be a secret shared by the ranks, so there
  // is no default derived from anything another user can see (a job id).
  if (const char* id = lookup("EVBENCH_RUN_ID"); id && *id) {
    s.token = id;
  } else if (s.size > 1) {
    throw ConfigError(
        "EVBENCH_RUN_ID is not set: with " + s.size_var + "=" + std::to_string(s.size) +
        " every rank needs the same secret run token, e.g. export "
        "EVBENCH_RUN_ID=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n') before launching");
  }
  return s;
}

void check_env_size(const EnvSettings& s, const Config& config, int nprocs) {
  if (s.size == nprocs) return;
  std::string needs = "the config needs " + std::to_string(nprocs) +
                      " processes (nodes=" + std::to_string(config.nodes) +
                      ", layout=" + to_string(config.layout) + ", evm=" + to_string(config.evm) +
                      ")";
  if (s.size_var.empty())
    throw ConfigError(
        "bootstrap env: no rank/size in the environment (EVBENCH_RANK/EVBENCH_SIZE, "
        "SLURM_PROCID/SLURM_NTASKS, OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE or "
        "PMI_RANK/PMI_SIZE), so this is a single process, but " +
        needs);
  throw ConfigError(s.size_var + "=" + std::to_string(s.size) + " but " + needs);
}

int launch_env(const Config& config, int nprocs, const WorkerFn& worker, const EnvSettings& s) {
  check_env_size(s, config, nprocs);
  if (s.size == 1) {
    SoloBootstrap solo;
    return run_worker(solo, worker);
  }
  const auto setup = std::chrono::milliseconds(setup_timeout_ms(config));
  std::unique_ptr<RendezvousServer> server;
  if (s.rank == 0) {
    ServerOptions so;
    so.host = s.host;
    so.port = s.port;
    so.token = s.token;
    so.size = s.size;
    so.join_timeout = setup;
    so.slow_round_warning = setup;
    so.tolerate_loss = config.on_failure == OnFailure::exclude;
    server = std::make_unique<RendezvousServer>(so);
    server->start();
  }
  int code;
  {
    ClientOptions co;
    co.host = s.host;
    co.port = s.port;
    co.token = s.token;
    co.rank = s.rank;
    co.size = s.size;
    co.connect_timeout = s.connect_timeout;
    co.join_timeout = setup;
    RendezvousClient client(co);  // throws evb::Error on failure: main reports it
    {
      // Rank 0 serves the rendezvous: a single point of failure. Its loss
      // ends this rank at once rather than at the next round (the end).
      std::unique_ptr<RendezvousWatch> watch;
      if (s.rank != 0)
        watch = std::make_unique<RendezvousWatch>(client.socket_fd(), [&client, &s] {
          if (client.closed()) return;
          log_line(rank_message(
              s.rank, "lost the rendezvous at " + s.host + ":" + std::to_string(s.port) +
                          " during the run: rank 0, which serves it, died or left; no run "
                          "finishes without rank 0 under the env bootstrap (a single point of "
                          "failure, even under on_failure exclude), so this rank stops"));
          std::_Exit(kExitRuntime);
        });
      code = run_worker(client, worker);
    }
  }  // goodbye
  if (server) {
    // Keep serving until the other ranks have left (their last goodbye).
    if (!server->wait_all_left(setup))
      log_line("rendezvous: some ranks are still connected " +
               std::to_string(setup.count() / 1000) + " s after rank 0 finished; closing it");
    server->stop();
  }
  return code;
}

}  // namespace evb::boot
