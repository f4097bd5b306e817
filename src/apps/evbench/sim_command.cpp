#include "apps/evbench/sim_command.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

#include "apps/evbench/sim_platform.hpp"
#include "apps/evbench/smpi_args.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "core/ring_geometry.hpp"
#include "core/topology.hpp"
#include "topo/platform_loader.hpp"

// Set by cmake/EvbenchInstall.cmake from the install directories.
#ifndef EVBENCH_SMPI_RELDIR
#define EVBENCH_SMPI_RELDIR "../libexec/evbench"
#endif

namespace evb {
namespace {

namespace fs = std::filesystem;

// SimGrid options every evbench simulation uses (docs/SCALE.md explains each).
const char* const kSimGridOptions[] = {
    // Only the network is simulated: CPU time between MPI calls is free.
    "--cfg=smpi/simulate-computation:no",
    // evbench keeps no global state: all ranks share one copy of the code.
    "--cfg=smpi/privatization:no",
    // Contention studies: acknowledgements do not load the reverse links.
    "--cfg=network/crosstraffic:0",
    // MPI_Alltoall as Open MPI's pairwise exchange, not SMPI's XOR pairing.
    "--cfg=smpi/alltoall:ring",
    // The bootstrap's collectives in log(N) rounds: SMPI's default
    // MPI_Allgather posts 2(N-1) requests per rank and waits for them one by
    // one, rescanning all of them each time; at 512 ranks the start-up
    // allgather alone ran for more than 10 minutes.
    "--cfg=smpi/allgather:bruck",
    "--cfg=smpi/allgatherv:ompi_bruck",
    "--cfg=smpi/gather:ompi_binomial",
    "--cfg=smpi/barrier:ompi_bruck",
    "--cfg=smpi/grow-injected-times:no",
    // Payload memory (core/payload_memory.hpp): shared blocks are honoured
    // (SimGrid copies only private bytes) in the global mode.
    "--cfg=smpi/shared-malloc:global",
    "--log=root.thres:warning",
};

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// A private temporary directory, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "evbench-sim-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw Error(std::string("sim: cannot create a temporary directory: ") + std::strerror(errno));
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw Error("sim: cannot write " + path);
}

// The progress line of `evbench sim` (docs/SCALE.md, "Progress"): the
// platform plug-in writes the simulated clock to a file as the simulation
// advances (EVBENCH_SIM_PROGRESS); this reads it every 200 ms and prints,
// every kCadence of wall time on stderr, the simulated time reached, the
// wall time and, from the rate since simulated time started moving, an
// estimate of what is left (when the run's simulated length is known: a
// duration, not an event count).
class SimProgress {
 public:
  static constexpr std::chrono::seconds kCadence{3};

  SimProgress(std::string file, std::optional<double> total_s)
      : file_(std::move(file)), total_s_(total_s) {}

  const std::string& file() const { return file_; }

  void poll() {
    const auto now = Clock::now();
    double sim = 0;
    if (std::ifstream in(file_); !(in >> sim)) sim = 0;
    if (sim > 0 && !moving_) {
      moving_ = true;
      sim0_ = sim;
      wall0_ = now;
    }
    if (now - next_ < Clock::duration::zero()) return;
    next_ = now + kCadence;
    if (now - start_ < kCadence) return;  // nothing to say yet
    print(sim, now);
  }

 private:
  using Clock = std::chrono::steady_clock;

  void print(double sim, Clock::time_point now) const {
    const double wall = std::chrono::duration<double>(now - start_).count();
    char line[256];
    int n = std::snprintf(line, sizeof line, "evbench: sim: %.3f", sim);
    if (total_s_) n += std::snprintf(line + n, sizeof line - n, " of ~%.3f", *total_s_);
    n += std::snprintf(line + n, sizeof line - n, " s simulated, %.0f s wall", wall);
    const double moved = sim - sim0_;
    const double since = std::chrono::duration<double>(now - wall0_).count();
    if (!moving_) {
      n += std::snprintf(line + n, sizeof line - n, " (setting up)");
    } else if (total_s_ && moved > 0 && since > 0) {
      const double left = std::max(0.0, *total_s_ - sim) / (moved / since);
      n += std::snprintf(line + n, sizeof line - n, ", about %.0f s left", left);
    }
    std::snprintf(line + n, sizeof line - n, "\n");
    std::fputs(line, stderr);
    std::fflush(stderr);
  }

  std::string file_;
  std::optional<double> total_s_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point next_ = start_;
  bool moving_ = false;
  double sim0_ = 0;
  Clock::time_point wall0_;
};

// The simulated length of a run, when the config fixes it: `duration` (each
// step of a one-to-one shift scan lasts that long); nullopt for a run of
// `events` (its length is what it measures).
std::optional<double> simulated_length_s(const Config& c, const ProtocolFactory& protocol) {
  if (c.events > 0) return std::nullopt;
  return protocol.steps(c) * c.duration_s;
}

// Runs argv with extra environment variables; returns its exit code.
// `progress` (may be null) is polled while it runs.
int run_child(const std::vector<std::string>& argv,
              const std::vector<std::pair<std::string, std::string>>& env, SimProgress* progress) {
  const pid_t pid = ::fork();
  if (pid < 0) throw Error(std::string("sim: fork: ") + std::strerror(errno));
  if (pid == 0) {
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "evbench: sim: cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(kExitUsage);
  }
  // Ctrl-C reaches the simulation (same process group); this process waits
  // for it to end so that the temporary directory is removed.
  const auto old_int = std::signal(SIGINT, SIG_IGN);
  int status = 0;
  int rc = 0;
  while ((rc = ::waitpid(pid, &status, progress ? WNOHANG : 0)) == 0 ||
         (rc < 0 && errno == EINTR)) {
    if (rc == 0) {
      progress->poll();
      ::usleep(200 * 1000);
    }
  }
  std::signal(SIGINT, old_int);
  if (rc < 0) throw Error(std::string("sim: waitpid: ") + std::strerror(errno));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

// SimGrid maps the shared payload of every RU ring slot on its own, next to
// the slot's private header room (core/payload_memory.hpp): about two memory
// maps per slot, in one process, which the kernel limits
// (vm.max_map_count). Fails before the simulation would, saying what to change.
void check_memory_maps(const Config& config, const ProtocolFactory& protocol) {
  if (!protocol.builds_events) return;
  uint64_t limit = 0;
  std::ifstream("/proc/sys/vm/max_map_count") >> limit;
  if (limit == 0) return;
  uint64_t maps = 0;
  for (int ru = 0; ru < config.nodes; ++ru) maps += 2 * ring_slots(config, ru) + 2;
  // SimGrid, the libraries and two per simulated rank (stack and guard).
  const uint64_t others = 8192 + 2 * static_cast<uint64_t>(config.nodes);
  if (maps + others > limit)
    throw ConfigError("ru_buffer: " + std::to_string(config.nodes) + " RU rings of " +
                      std::to_string(ring_slots(config, 0)) + " slots need about " +
                      std::to_string(maps + others) +
                      " memory maps in the simulation, and vm.max_map_count is " +
                      std::to_string(limit) +
                      ": lower ru_buffer (a ring needs few slots under sim) or raise "
                      "vm.max_map_count");
}

}  // namespace

std::string find_smpi_build(const std::string& self_exe) {
  std::vector<std::pair<std::string, std::string>> tried;  // directory, where it came from
  if (const char* env = std::getenv("EVBENCH_SMPI_BUILD"); env != nullptr && *env != '\0') {
    tried.emplace_back(env, " ($EVBENCH_SMPI_BUILD)");
  } else {
    std::error_code ec;
    const fs::path bindir = fs::canonical(self_exe, ec).parent_path();
    if (!ec) {
      // <prefix>/bin/evbench -> <prefix>/libexec/evbench (the install's
      // relative path); <build>/bin/evbench -> <build>/../build-sim.
      tried.emplace_back((bindir / EVBENCH_SMPI_RELDIR).lexically_normal().string(), "");
      tried.emplace_back((bindir.parent_path().parent_path() / "build-sim").string(), "");
    }
  }
  for (const auto& [dir, why] : tried)
    if (is_file(dir + "/bin/evbench-smpi") && is_file(dir + "/lib/libevbench-simplatform.so"))
      return dir;
  std::string list;
  for (const auto& [dir, why] : tried) list += (list.empty() ? "" : ", ") + dir + why;
  throw ConfigError(
      "sim: the SMPI build is missing (bin/evbench-smpi and "
      "lib/libevbench-simplatform.so in none of: " +
      (list.empty() ? std::string("no directory to try") : list) +
      "); build it with `cmake -S . -B build-sim -G Ninja -DEVBENCH_SIM=ON && "
      "cmake --build build-sim` (needs libsimgrid-dev; scripts/install-deps.sh), "
      "install it with `cmake --install build-sim --prefix PREFIX` (the prefix of "
      "this evbench) or set EVBENCH_SMPI_BUILD to its directory");
}

void add_sim_mpi(std::vector<std::string>& sets) {
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"driver", "mpi"},
                                   std::pair<std::string, std::string>{"bootstrap", "mpi"}}) {
    for (const auto& s : sets)
      if (s.rfind(key + "=", 0) == 0 && s != key + "=" + value)
        throw ConfigError("--set " + s + ": sim runs " + key + " " + value +
                          " (SimGrid SMPI); drop the --set");
    sets.push_back(key + "=" + value);
  }
}

void add_sim_common_overrides(std::vector<std::string>& sets, const Config& asked,
                              const ProtocolFactory& protocol) {
  auto user_set = [&](const std::string& key) {
    return std::any_of(sets.begin(), sets.end(),
                       [&](const std::string& s) { return s.rfind(key + "=", 0) == 0; });
  };
  // What the protocol cannot simulate (a one-to-one node sending to itself
  // has no route on the simulated platform).
  if (protocol.check_simulated) protocol.check_simulated(asked);
  // Payloads are not moved (SMPI shared memory; the credit model counts
  // them): their checksums cannot hold, so sim turns payload checks off, and
  // results say so (results.integrity.payload_checks); asking for them is an
  // error.
  if (protocol.builds_events) {
    if (asked.verify_payload == VerifyPayload::on)
      throw ConfigError(
          "verify.payload: on: sim does not move payload bytes (shared memory, or counted by "
          "the credit model), where payload checksums cannot hold (headers are still checked); "
          "drop the key or set it off");
    for (const auto& [key, set] :
         {std::pair<const char*, bool>{"fault.corrupt", asked.corrupt_probability > 0},
          {"fault.corrupt_every", asked.corrupt_every > 0}})
      if (set)
        throw ConfigError(std::string(key) +
                          ": corruption is found by payload checks, which sim turns off "
                          "(payload bytes are not moved, verify.payload); drop the key");
    sets.push_back("verify.payload=off");
  }
  // Normal pages: a touched fragment header must not pull in a 2 MiB page of
  // window (the windows of 512 BUs are 32 GiB of address space).
  if (!user_set("page_size")) sets.push_back("page_size=normal");
}

void add_sim_overrides(std::vector<std::string>& sets, const Config& asked,
                       const ProtocolFactory& protocol) {
  // Idle simulated ranks of the event builders and of alltoall block in
  // MPI_Waitany and poll with MPI_Testany (one simulator call, where
  // MPI_Testsome makes one per request), unless the user chose
  // (docs/SCALE.md). SMPI's MPI_Testany never reports finished eager sends;
  // MPI_Waitany does, so testany is only set with waitany. The point-to-point
  // micro-benchmarks keep polling: a one-to-one shift scan with blocking
  // ranks finishes at 30 ms per shift, with the polling figures, but in 81 s
  // of wall time against 3.4 s, and one at 100 ms per shift did not finish
  // within 100 s (why is not yet understood; docs/SCALE.md, "Idle ranks
  // block").
  auto user_set = [&](const std::string& key) {
    return std::any_of(sets.begin(), sets.end(),
                       [&](const std::string& s) { return s.rfind(key + "=", 0) == 0; });
  };
  add_sim_common_overrides(sets, asked, protocol);
  if (!user_set("driver_options.wait") && protocol.sim_waits_for_any) {
    sets.push_back("driver_options.wait=waitany");
    if (!user_set("driver_options.poll_method"))
      sets.push_back("driver_options.poll_method=testany");
  }
  // Every MPI_Waitany / MPI_Testany call costs SimGrid work per request
  // posted; command receives beyond a few per channel only queue
  // (docs/SCALE.md, "Cost").
  if (!user_set("driver_options.any_source_depth"))
    sets.push_back("driver_options.any_source_depth=4");
}

int run_sim(const Config& config, const SimRequest& req, const ProtocolFactory& protocol) {
  if (req.platform.empty()) throw UsageError("sim: --platform FILE is required");
  const Topology topo = make_topology(config);
  check_memory_maps(config, protocol);
  const topo::Platform platform = topo::load_platform(req.platform);
  std::vector<int> order;
  if (req.order.empty()) {
    for (int h = 0; h < platform.host_count(); ++h) order.push_back(h);
  } else {
    order = topo::load_order(platform, req.order);
  }
  const std::string name = req.platform + (req.order.empty() ? "" : " (order " + req.order + ")");
  const SimPlacement placement = place_ranks(topo, order, name);
  if (placement.evm_shares_host)
    std::fprintf(stderr,
                 "evbench: sim: no host left for the dedicated EVM: it shares node 0's host\n");
  const std::string smpi = find_smpi_build("/proc/self/exe");
  TempDir tmp;
  sim::write_routes_file(sim_platform(platform, placement.used, true), tmp.file("routes"));
  write_text(tmp.file("hostfile"), hostfile_text(platform, placement));
  write_text(tmp.file("config.yaml"), to_yaml(config));

  std::vector<std::string> argv = {"smpirun",
                                   "-np",
                                   std::to_string(topo.processes()),
                                   "-platform",
                                   smpi + "/lib/libevbench-simplatform.so",
                                   "-hostfile",
                                   tmp.file("hostfile")};
  for (const char* o : kSimGridOptions) argv.emplace_back(o);
  // Every request a failed MPI_Test(some) looks at costs smpi/test of
  // simulated time. Ranks that block (driver_options.wait=waitany) sleep a
  // 1-us poll interval themselves where they must poll, so tests are free;
  // ranks that poll (wait=none) need the cost, or simulated time would stand
  // still while they spin.
  const auto wait = config.driver_options.find("wait");
  const bool blocks = wait != config.driver_options.end() && wait->second == "waitany";
  argv.emplace_back(blocks ? "--cfg=smpi/test:0" : "--cfg=smpi/test:1e-6");
  // --smpi-factors one: every message at its route's full bandwidth and
  // latency (SMPI's default calibration gives a message above 64 KiB 0.9355
  // of the link), as the credit model moves it: like-for-like comparisons.
  if (req.unit_factors)
    argv.insert(argv.end(), {"--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1"});
  // smpirun splits and globs the program's arguments: the name is escaped
  // and the results are written in the temporary directory, then moved.
  argv.insert(argv.end(), {smpi + "/bin/evbench-smpi", "run", tmp.file("config.yaml"),
                           "--simulated-on", smpi_arg_encode(name)});
  if (!req.json.empty()) argv.insert(argv.end(), {"--json", tmp.file("results.json")});
  if (req.quiet) argv.emplace_back("--quiet");
  std::vector<std::pair<std::string, std::string>> env = {
      {"EVBENCH_SIM_ROUTES", tmp.file("routes")},
      {"EVBENCH_SMPI_NP", std::to_string(topo.processes())}};
  // --quiet: no progress lines (and the plug-in writes no progress file).
  std::optional<SimProgress> progress;
  if (!req.quiet) {
    progress.emplace(tmp.file("progress"), simulated_length_s(config, protocol));
    env.emplace_back("EVBENCH_SIM_PROGRESS", progress->file());
  }
  const int rc = run_child(argv, env, progress ? &*progress : nullptr);
  std::error_code ec;
  if (!req.json.empty() && fs::exists(tmp.file("results.json")) &&
      !fs::copy_file(tmp.file("results.json"), req.json, fs::copy_options::overwrite_existing, ec))
    throw Error("sim: cannot write --json " + req.json + ": " + ec.message());
  return rc;
}

}  // namespace evb
