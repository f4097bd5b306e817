#include "conformance_harness.hpp"

#include <dirent.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/error.hpp"

namespace evb::conformance {

// ---------------------------------------------------------------- variants

const PluginRegistry& registry() {
  static const PluginRegistry r = [] {
    PluginRegistry reg;
    register_builtin_plugins(reg);
    return reg;
  }();
  return r;
}

namespace {

// driver_options sets worth testing, per driver name. Drivers that are not
// built are simply absent from the registry; drivers without rows here get
// one default variant.
const std::map<std::string, std::vector<Variant>>& variant_table() {
  static const std::map<std::string, std::vector<Variant>> table = [] {
    std::map<std::string, std::vector<Variant>> t;
    t["tcp"] = {Variant{.driver = "tcp", .label = "tcp"}};
    for (const char* p : {"tcp", "shm", "sockets", "udp", "verbs", "psm2"}) {
      Variant v{.driver = "libfabric",
                .label = std::string("libfabric_") + p,
                .options = {{"provider", p}},
                .probe_variant = std::string("libfabric/") + p};
      // libfabric 1.17 provider bugs; libfabricQuirks in
      // tests/unit/libfabric/lf_quirks_test.cpp asserts each is still there
      // in 1.17 (docs/drivers/libfabric.md, Limitations).
      const std::string prov = p;
      if (prov == "tcp")
        v.truncation_broken =
            "libfabric 1.17 tcp;ofi_rxm drops the connection when it truncates a message of "
            "16 KiB or less (asserted by libfabricQuirks.Tcp117EagerTruncationDropsTheConnection)";
      if (prov == "shm")
        v.shared_in_process =
            "libfabric shm maps a peer endpoint of the same process by taking that endpoint's "
            "own region (smr_map_to_region's ep_name_list), which its fi_close unmaps: a rank "
            "still sending its goodbye to it then faults in pthread_spin_lock; ranks in "
            "processes of their own each map the region themselves";
      if (prov == "shm")
        v.truncation_broken =
            "libfabric 1.17 shm spins forever in fi_cq_read when it truncates a message "
            "above 4 KiB (asserted by "
            "libfabricQuirks.Shm117TruncationAboveInjectSizeNeverCompletes)";
      if (prov == "udp")
        v.truncation_broken =
            "libfabric 1.17 udp;ofi_rxd reports truncated receives as ok (asserted by "
            "libfabricQuirks.Udp117TruncationIsReportedAsOk)";
      if (!v.truncation_broken.empty()) v.truncation_broken_in = "libfabric 1.17";
      t["libfabric"].push_back(std::move(v));
    }
    // UCX over its two transports that run without hardware here.
    t["ucx"] = {Variant{.driver = "ucx",
                        .label = "ucx_tcp",
                        .options = {{"tls", "tcp"}},
                        .probe_variant = "ucx/tcp"},
                Variant{.driver = "ucx",
                        .label = "ucx_sm",
                        .options = {{"tls", "sm"}},
                        .probe_variant = "ucx/sm"}};
    // PSM2's shared-memory device, one rank per process: two endpoints of
    // one process (PSM2_MULTI_EP) never saw each other's messages over shm
    // here. Runs under mpirun inside scripts/with-psm2-shm.sh (ctest -R
    // conformance_psm2); elsewhere the probe or the launcher check says why not.
    t["psm2"] = {Variant{
        .driver = "psm2",
        .label = "psm2_shm",
        .process_bootstrap = "mpi",
        .needs_launcher = "psm2: needs mpirun inside scripts/with-psm2-shm.sh; run by ctest -R "
                          "conformance_psm2",
    }};
    t["mpi"] = {Variant{
        .driver = "mpi",
        .label = "mpi",
        .process_bootstrap = "mpi",
        .needs_launcher = "mpi: needs mpirun; run by ctest -R conformance_mpi",
        .lost_peer_undetectable =
            "mpi: a killed rank ends the whole MPI job (no fault tolerance), so it cannot be "
            "observed from a surviving rank",
        .large_truncation_unsafe =
            "mpi: Open MPI 4.1 ob1 writes past the receive buffer when it truncates a "
            "rendezvous-size message (docs/drivers/mpi.md, Limitations)",
        .large_truncation_unsafe_in = "Open MPI v4.1",
    }};
    return t;
  }();
  return table;
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

// A driver's probe, run once per process.
const DriverProbe& probe_of(const DriverFactory& f) {
  static std::mutex m;
  static std::map<std::string, DriverProbe> cache;
  std::lock_guard lock(m);
  auto it = cache.find(f.name);
  if (it == cache.end()) {
    DriverProbe p;
    if (f.probe) {
      try {
        p = f.probe();
      } catch (const std::exception& e) {
        p.can_run = false;
        p.reason = std::string("probe threw: ") + e.what();
      }
    } else {
      p.can_run = true;
    }
    it = cache.emplace(f.name, std::move(p)).first;
  }
  return it->second;
}

int env_int(std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (const char* v = std::getenv(n); v != nullptr && *v != '\0') return std::atoi(v);
  }
  return -1;
}

}  // namespace

std::vector<Variant> all_variants() {
  std::vector<Variant> out;
  for (const auto& [name, factory] : registry().drivers()) {
    auto it = variant_table().find(name);
    if (it != variant_table().end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
    } else {
      out.push_back(Variant{.driver = name, .label = sanitize(name)});
    }
  }
  return out;
}

const Variant* find_variant(const std::string& label) {
  static const std::vector<Variant> all = all_variants();
  for (const auto& v : all) {
    if (v.label == label) return &v;
  }
  return nullptr;
}

std::string variant_name(const testing::TestParamInfo<Variant>& info) {
  return info.param.label;
}

void PrintTo(const Variant& v, std::ostream* os) {
  *os << v.label;
  for (const auto& [k, val] : v.options) *os << " " << k << "=" << val;
}

Config config_for(const Variant& v) {
  Config c;
  c.driver_options = v.options;
  if (const DriverFactory* f = registry().driver(v.driver)) {
    auto has = [&](const char* key) {
      return std::any_of(f->options.begin(), f->options.end(),
                         [&](const KeySpec& k) { return k.path == key; });
    };
    // Normalised values (seconds), as the config loader would pass them.
    if (has("connect_timeout") && !v.options.count("connect_timeout")) {
      c.driver_options["connect_timeout"] = "10";
    }
    if (has("shutdown_timeout") && !v.options.count("shutdown_timeout")) {
      c.driver_options["shutdown_timeout"] = "3";
    }
  }
  return c;
}

int launcher_size() {
  return env_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"});
}
int launcher_rank() {
  return env_int({"OMPI_COMM_WORLD_RANK", "PMI_RANK"});
}

std::vector<PeerId> all_but(int rank, int size) {
  std::vector<PeerId> peers;
  for (int i = 0; i < size; ++i) {
    if (i != rank) peers.push_back(i);
  }
  return peers;
}

std::vector<std::byte> pattern(size_t n, uint32_t seed) {
  std::vector<std::byte> v(n);
  uint32_t x = seed * 2654435761u + 12345u;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<std::byte>(x >> 24);
  }
  return v;
}

std::string describe(const Completion& c) {
  static const char* types[] = {"send", "recv", "rdma_write", "remote_write", "peer_event"};
  static const char* statuses[] = {"ok", "peer_lost", "peer_closed", "truncated", "error"};
  std::ostringstream os;
  auto t = static_cast<size_t>(c.type);
  auto s = static_cast<size_t>(c.status);
  os << "{cookie " << c.cookie << ", " << (t < 5 ? types[t] : "type?") << ", "
     << (s < 5 ? statuses[s] : "status?") << ", peer " << c.peer << ", tag " << c.tag << ", "
     << c.bytes << " B, imm 0x" << std::hex << c.immediate << "}";
  return os.str();
}

void remove_shm_litter(int pid) {
  const std::string prefix = std::to_string(pid) + ":";
  DIR* dir = ::opendir("/dev/shm");
  if (!dir) return;
  std::vector<std::string> doomed;
  while (const dirent* e = ::readdir(dir)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) doomed.push_back(e->d_name);
  }
  ::closedir(dir);
  for (const auto& name : doomed) ::unlink(("/dev/shm/" + name).c_str());
}

// ---------------------------------------------------------------- Guard

namespace {

struct GuardSlot {
  Clock::time_point deadline;
  std::string what;
};

class Watchdog {
 public:
  static Watchdog& instance() {
    static Watchdog* w = new Watchdog;  // never destroyed: threads may outlive main()
    return *w;
  }
  uint64_t arm(const std::string& what, milliseconds limit) {
    std::lock_guard lock(m_);
    uint64_t id = ++next_;
    slots_[id] = GuardSlot{Clock::now() + limit, what};
    return id;
  }
  void disarm(uint64_t id) {
    std::lock_guard lock(m_);
    slots_.erase(id);
  }

 private:
  Watchdog() {
    std::thread([this] { run(); }).detach();
  }
  void run() {
    for (;;) {
      std::this_thread::sleep_for(milliseconds(100));
      std::lock_guard lock(m_);
      for (const auto& [id, slot] : slots_) {
        if (Clock::now() < slot.deadline) continue;
        const testing::TestInfo* t = testing::UnitTest::GetInstance()->current_test_info();
        std::fprintf(stderr,
                     "\n[  HANG    ] %s%s%s: %s did not return in time; the driver broke "
                     "the contract (setup calls are bounded by their timeouts, data-path calls "
                     "never block). Exiting with status 1.\n",
                     t ? t->test_suite_name() : "", t ? "." : "", t ? t->name() : "",
                     slot.what.c_str());
        std::fflush(stderr);
        std::fflush(stdout);
        remove_shm_litter(static_cast<int>(::getpid()));
        std::_Exit(1);
      }
    }
  }
  std::mutex m_;
  uint64_t next_ = 0;
  std::map<uint64_t, GuardSlot> slots_;
};

thread_local std::vector<uint64_t> guard_ids;

}  // namespace

Guard::Guard(const std::string& what, milliseconds limit) {
  guard_ids.push_back(Watchdog::instance().arm(what, limit));
}

Guard::~Guard() {
  Watchdog::instance().disarm(guard_ids.back());
  guard_ids.pop_back();
}

// ---------------------------------------------------------------- Shared

// What the ranks of one run share. In-process: a polling barrier between
// the rank threads. One rank per process: the bootstrap's barrier.
class Shared {
 public:
  Shared(int parties, Bootstrap* boot, std::string label)
      : parties_(parties), boot_(boot), label_(std::move(label)) {}

  const std::string& label() const { return label_; }

  void barrier(Rank& r) {
    if (boot_) {
      boot_->barrier();
      return;
    }
    uint64_t gen = 0;
    {
      std::lock_guard lock(m_);
      gen = generation_;
      if (++arrived_ == parties_) {
        arrived_ = 0;
        ++generation_;
        return;
      }
    }
    auto deadline = Clock::now() + std::chrono::seconds(30);
    for (;;) {
      {
        std::lock_guard lock(m_);
        if (generation_ != gen) return;
        if (done_[0] > 0) {
          ADD_FAILURE() << r.who() << ": barrier broken: another rank left its body early";
          return;
        }
      }
      if (Clock::now() > deadline) {
        ADD_FAILURE() << r.who() << ": barrier timed out after 30 s";
        return;
      }
      r.pump();
    }
  }

  // After the body: every rank waits (polling) until all bodies are done
  // (`phase` 0), then until every rank has checked its leftovers (`phase`
  // 1), so no rank shuts down (and makes peers see peer_closed) before
  // everyone has checked.
  void final_barrier(Rank& r, int phase) {
    if (boot_) {
      boot_->barrier();
      return;
    }
    {
      std::lock_guard lock(m_);
      ++done_[phase];
    }
    auto deadline = Clock::now() + std::chrono::seconds(60);
    for (;;) {
      {
        std::lock_guard lock(m_);
        if (done_[phase] == parties_) return;
      }
      if (Clock::now() > deadline) {
        ADD_FAILURE() << r.who() << ": other ranks did not finish their bodies within 60 s";
        return;
      }
      r.pump();
    }
  }

  void skip(const std::string& reason) {
    std::lock_guard lock(m_);
    if (!skip_) skip_ = reason;
  }
  std::optional<std::string> skip_reason() {
    std::lock_guard lock(m_);
    return skip_;
  }

  // Variant::shared_in_process: shutdowns one at a time, in rank order.
  void serialise_shutdowns() { serial_shutdown_ = true; }
  // Waits (polling r's driver) until it is r's turn to shut down; true when
  // turns are taken, and then end_shutdown_turn() must follow.
  bool await_shutdown_turn(Rank& r) {
    if (!serial_shutdown_ || boot_) return false;
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    for (;;) {
      {
        std::lock_guard lock(m_);
        if (shutdown_turn_ == r.rank()) return true;
      }
      if (Clock::now() > deadline) {
        ADD_FAILURE() << r.who() << ": the ranks before it did not shut down within 60 s";
        return false;
      }
      r.pump();
    }
  }
  void end_shutdown_turn() {
    std::lock_guard lock(m_);
    ++shutdown_turn_;
  }

 private:
  std::mutex m_;
  int parties_;
  Bootstrap* boot_;
  std::string label_;
  int arrived_ = 0;
  uint64_t generation_ = 0;
  int done_[2] = {0, 0};
  std::optional<std::string> skip_;
  bool serial_shutdown_ = false;
  int shutdown_turn_ = 0;
};

// ---------------------------------------------------------------- Rank

Rank::Rank(int rank, int size, Driver& driver, Shared& shared)
    : rank_(rank),
      size_(size),
      driver_(driver),
      shared_(shared),
      caps_(driver.capabilities()),
      poll_what_(who() + ": poll()") {}

Rank::~Rank() = default;

std::string Rank::who() const {
  return "rank " + std::to_string(rank_) + " (" + shared_.label() + ")";
}

Buffer& Rank::buffer(size_t n, std::byte fill) {
  // Never zero bytes: some libraries refuse to register an empty range.
  const size_t alloc = std::max<size_t>(n, 1);
  memory_.push_back(std::make_unique<std::byte[]>(alloc));
  std::byte* p = memory_.back().get();
  std::fill(p, p + alloc, fill);
  registrations_.push_back(driver_.register_memory(p, alloc));
  EXPECT_NE(registrations_.back(), nullptr) << who() << ": register_memory returned null";
  const Registration* reg = registrations_.back().get();
  if (reg) {
    EXPECT_TRUE(reg->covers(p, alloc)) << who() << ": registration does not cover its range";
  }
  buffers_.push_back(Buffer{p, n, reg});
  return buffers_.back();
}

void Rank::pump() {
  Completion buf[64];
  size_t n = 0;
  {
    // A mutex per poll is cheap next to a driver's poll; a poll that blocks
    // is a contract violation worth a precise report.
    Guard g(poll_what_, milliseconds(5000));
    n = driver_.poll(buf);
  }
  for (size_t i = 0; i < n; ++i) queue_.push_back(buf[i]);
  if (n == 0) std::this_thread::yield();
}

std::vector<Completion> Rank::take(size_t n, milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  while (queue_.size() < n && Clock::now() < deadline) pump();
  if (queue_.size() < n) {
    std::string got;
    for (const auto& c : queue_) got += " " + describe(c);
    ADD_FAILURE() << who() << ": timed out after " << timeout.count() << " ms waiting for " << n
                  << " completions; got " << queue_.size() << ":" << got
                  << "; last_error: " << driver_.last_error();
  }
  std::vector<Completion> out;
  while (!queue_.empty() && out.size() < n) {
    out.push_back(queue_.front());
    queue_.pop_front();
  }
  return out;
}

std::optional<Completion> Rank::take_if(const std::function<bool(const Completion&)>& pred,
                                        milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  for (;;) {
    auto it = std::find_if(queue_.begin(), queue_.end(), pred);
    if (it != queue_.end()) {
      Completion c = *it;
      queue_.erase(it);
      return c;
    }
    if (Clock::now() >= deadline) return std::nullopt;
    pump();
  }
}

std::vector<Completion> Rank::drain(milliseconds quiet) {
  auto deadline = Clock::now() + quiet;
  while (Clock::now() < deadline) pump();
  std::vector<Completion> out(queue_.begin(), queue_.end());
  queue_.clear();
  return out;
}

void Rank::barrier() {
  shared_.barrier(*this);
}

void Rank::skip(const std::string& reason) {
  shared_.skip(reason);
}

void Rank::release_registrations() {
  registrations_.clear();
}

// ---------------------------------------------------------------- runs

std::optional<std::string> cannot_run_here(const Variant& v) {
  const DriverFactory* f = registry().driver(v.driver);
  if (!f) return "not run: " + v.label + ": driver '" + v.driver + "' is not built";
  if (!v.process_bootstrap.empty() && launcher_size() < 0) return v.needs_launcher;
  const DriverProbe& p = probe_of(*f);
  if (!p.can_run)
    return "not run: " + v.label + ": the driver's probe says it cannot run here: " + p.reason;
  if (!v.probe_variant.empty()) {
    for (const auto& [name, why] : p.variants_not_here) {
      if (name == v.probe_variant)
        return "not run: " + v.label + ": the driver's probe says " + name +
               " cannot run here: " + why;
    }
  }
  return std::nullopt;
}

std::string library_version(const Variant& v) {
  const DriverFactory* f = registry().driver(v.driver);
  return f ? probe_of(*f).library_version : std::string();
}

std::optional<std::string> known_truncation_bug(const Variant& v) {
  if (v.truncation_broken.empty()) return std::nullopt;
  const DriverFactory* f = registry().driver(v.driver);
  if (!f) return std::nullopt;
  const std::string& version = probe_of(*f).library_version;
  if (version.rfind(v.truncation_broken_in, 0) == 0) {
    return "known library bug in " + version + ": " + v.truncation_broken;
  }
  std::printf("[ note     ] %s: the truncation bug was recorded for %s, this is %s: checked\n",
              v.label.c_str(), v.truncation_broken_in.c_str(), version.c_str());
  return std::nullopt;
}

namespace {

// Runs the body, then the end-of-run checks, on one rank.
void run_rank(Rank& r, Shared& shared, const Body& body) {
  try {
    body(r);
  } catch (const std::exception& e) {
    ADD_FAILURE() << r.who() << ": the body threw: " << e.what();
  }
  shared.final_barrier(r, 0);
  auto check_leftovers = [&](const char* when) {
    if (shared.skip_reason()) return;
    for (const Completion& c : r.queued()) {
      // Peers shutting down after the checks: their peer_closed is expected.
      if (c.type == OpType::peer_event && c.status == OpStatus::peer_closed) continue;
      ADD_FAILURE() << r.who() << ": completion that no operation of the test accounts for ("
                    << when << "): " << describe(c);
    }
  };
  check_leftovers("after the body");
  r.drain(milliseconds(0));
  shared.final_barrier(r, 1);
  check_leftovers("while the other ranks finished");
  const bool turn = shared.await_shutdown_turn(r);
  try {
    Guard g(r.who() + ": shutdown()", milliseconds(20000));
    r.driver().shutdown();
  } catch (const std::exception& e) {
    ADD_FAILURE() << r.who() << ": shutdown() threw: " << e.what();
  }
  if (turn) shared.end_shutdown_turn();
}

// Runs fn(i) for i in [0, n) on n threads; returns the error messages.
std::vector<std::string> on_threads(int n, const std::function<void(int)>& fn) {
  std::vector<std::string> errors(n);
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      try {
        fn(i);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  }
  for (auto& t : threads) t.join();
  return errors;
}

std::optional<std::string> run_in_process(const Variant& v, const DriverFactory& f, int n,
                                          const Body& body) {
  const Config config = config_for(v);
  std::vector<std::unique_ptr<Driver>> drivers;
  for (int i = 0; i < n; ++i) {
    DriverContext ctx{.rank = i, .size = n, .all_local = true, .config = &config};
    try {
      Guard g(v.label + " rank " + std::to_string(i) + ": DriverFactory::create",
              milliseconds(20000));
      drivers.push_back(f.create(ctx));
    } catch (const std::exception& e) {
      // The probe said this variant runs here (cannot_run_here): not
      // creating it is a failure, never a "not run".
      ADD_FAILURE() << v.label << " rank " << i << ": the driver's probe says this variant can "
                    << "run here, but DriverFactory::create threw: " << e.what();
      return std::nullopt;
    }
    if (!drivers.back()) {
      ADD_FAILURE() << v.label << ": DriverFactory::create returned null";
      return std::nullopt;
    }
  }
  std::vector<std::string> addresses(n);
  auto report = [&](const char* step, const std::vector<std::string>& errors) {
    bool failed = false;
    for (int i = 0; i < n; ++i) {
      if (errors[i].empty()) continue;
      ADD_FAILURE() << v.label << " rank " << i << ": " << step << " threw: " << errors[i];
      failed = true;
    }
    return failed;
  };
  if (report("local_address()", on_threads(n, [&](int i) {
               Guard g(v.label + " rank " + std::to_string(i) + ": local_address()",
                       milliseconds(20000));
               addresses[i] = drivers[i]->local_address();
             }))) {
    return std::nullopt;
  }
  if (report("connect()", on_threads(n, [&](int i) {
               Guard g(v.label + " rank " + std::to_string(i) + ": connect()", milliseconds(30000));
               drivers[i]->connect(addresses, all_but(i, n));
             }))) {
    return std::nullopt;
  }
  Shared shared(n, nullptr, v.label);
  if (!v.shared_in_process.empty()) shared.serialise_shutdowns();
  std::vector<std::unique_ptr<Rank>> ranks;
  for (int i = 0; i < n; ++i) ranks.push_back(std::make_unique<Rank>(i, n, *drivers[i], shared));
  on_threads(n, [&](int i) { run_rank(*ranks[i], shared, body); });
  // Registrations go before their driver, memory after it.
  for (int i = 0; i < n; ++i) {
    Guard g(v.label + " rank " + std::to_string(i) + ": deregistration and ~Driver()",
            milliseconds(20000));
    ranks[i]->release_registrations();
    drivers[i].reset();
    ranks[i].reset();
  }
  return shared.skip_reason();
}

std::optional<std::string> run_in_processes(const Variant& v, const DriverFactory& f, int n,
                                            const Body& body) {
  const BootstrapFactory* boot = registry().bootstrap(v.process_bootstrap);
  if (!boot)
    return "not run: " + v.label + ": bootstrap '" + v.process_bootstrap + "' is not built";
  const int world = launcher_size();
  if (world < n) {
    return v.label + ": needs " + std::to_string(n) + " ranks, the launcher started " +
           std::to_string(world);
  }
  const Config config = config_for(v);
  std::optional<std::string> skip;
  auto worker = [&](Bootstrap& b) -> int {
    DriverContext ctx{
        .rank = b.rank(), .size = b.size(), .all_local = b.all_local(), .config = &config};
    std::unique_ptr<Driver> d;
    std::string create_error;
    try {
      Guard g(v.label + ": DriverFactory::create", milliseconds(60000));
      d = f.create(ctx);
      if (!d) create_error = "returned null";
    } catch (const std::exception& e) {
      create_error = std::string("threw: ") + e.what();
    }
    // Every rank learns whether all could create theirs (no rank is left
    // waiting in set-up for one that gave up). The probe said the variant
    // runs here (cannot_run_here): a failed create is a failure.
    const auto created = b.allgather(create_error.empty() ? std::string("ok") : create_error);
    bool all_created = true;
    for (size_t i = 0; i < created.size(); ++i) {
      if (created[i] == "ok") continue;
      all_created = false;
      if (static_cast<int>(i) == b.rank() || b.rank() == 0) {
        ADD_FAILURE() << v.label << " rank " << i << ": the driver's probe says this variant can "
                      << "run here, but DriverFactory::create " << created[i];
      }
    }
    if (!all_created) return 0;
    std::string who = v.label + " rank " + std::to_string(b.rank());
    try {
      auto addresses = b.allgather(d->local_address());
      d->connect(addresses, all_but(b.rank(), b.size()));
    } catch (const std::exception& e) {
      ADD_FAILURE() << who << ": set-up threw: " << e.what();
      return 0;
    }
    b.barrier();
    Shared shared(b.size(), &b, v.label);
    auto r = std::make_unique<Rank>(b.rank(), b.size(), *d, shared);
    run_rank(*r, shared, body);
    b.barrier();
    r->release_registrations();
    d.reset();
    r.reset();
    skip = shared.skip_reason();
    // Every rank's verdict shows in rank 0's report (the one printed).
    auto verdicts = b.allgather(testing::Test::HasFailure() ? "F" : "-");
    for (size_t i = 0; i < verdicts.size() && b.rank() == 0; ++i) {
      if (i != 0 && verdicts[i] == "F") {
        ADD_FAILURE() << v.label << ": rank " << i << " failed (its failures are printed with a "
                      << "[rank " << i << "] prefix)";
      }
    }
    return 0;
  };
  try {
    boot->launch(config, world, worker);
  } catch (const std::exception& e) {
    ADD_FAILURE() << v.label << ": bootstrap '" << v.process_bootstrap << "' threw: " << e.what();
  }
  return skip;
}

}  // namespace

std::optional<std::string> run_ranks(const Variant& v, int ranks, const Body& body) {
  if (auto why = cannot_run_here(v)) return why;
  const DriverFactory& f = *registry().driver(v.driver);
  if (!v.process_bootstrap.empty()) return run_in_processes(v, f, ranks, body);
  return run_in_process(v, f, ranks, body);
}

}  // namespace evb::conformance
