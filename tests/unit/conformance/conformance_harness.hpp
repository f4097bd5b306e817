#pragma once
// The driver conformance harness.
//
// Every contract item of drivers/api/driver.hpp is one TEST_P, written once
// as a per-rank body ("rank 0 sends, rank 1 receives"). The harness runs the
// body for every built driver and variant (enumerated from the plug-in
// registry plus a table of driver_options sets per driver name):
//  - in-process drivers (tcp, libfabric): N driver instances in this process,
//    created through DriverFactory::create, connected from threads, each
//    rank's body on its own thread;
//  - one-rank-per-process drivers (mpi): only this process's rank, the ranks
//    started by a launcher and joined through a bootstrap from the registry
//    (idle ranks of a larger launch just take part in set-up and barriers).
// The variant table is variant_table() in conformance_harness.cpp.
// Buffers a body gets from Rank::buffer() live until the driver is gone, so a
// failed test never leaves a driver writing into freed memory. Every wait has
// a deadline, and driver calls that must return (poll, wait, connect,
// shutdown...) run under a Guard: a driver that blocks forever ends the test
// process with a "[  HANG    ]" line naming the call.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "drivers/api/driver.hpp"
#include "drivers/api/registry.hpp"

namespace evb::conformance {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How long a body waits for one expected completion before failing (on
// loopback everything takes milliseconds; failing drivers must not eat the
// suite's time budget).
constexpr milliseconds kOpTimeout{5000};

// One driver with one set of driver_options.
struct Variant {
  std::string driver;                          // factory name in the registry
  std::string label;                           // instantiation name: tcp, libfabric_shm
  std::map<std::string, std::string> options;  // driver_options
  // The name the driver's probe gives this variant (DriverProbe::
  // variants_usable / variants_not_here: "libfabric/verbs", "ucx/sm"); when
  // the probe lists it as not here, the variant is not run, with the
  // probe's reason. Whatever the probe does not rule out must run: a
  // DriverFactory::create that throws then is a failure, not a skip.
  std::string probe_variant;
  // Non-empty: one rank per process, started by a launcher and joined
  // through this bootstrap (from the registry).
  std::string process_bootstrap;
  std::string needs_launcher;  // skip reason when not started by a launcher
  // Non-empty: this variant cannot notice a killed peer (skip reason).
  std::string lost_peer_undetectable;
  // Non-empty: a library bug recorded for the library version starting with
  // large_truncation_unsafe_in (the probe's library_version) writes past the
  // posted receive when it truncates a large (rendezvous-size) message; the
  // truncation test asserts the bug under that version and re-checks under
  // any other.
  std::string large_truncation_unsafe;
  std::string large_truncation_unsafe_in;
  // Non-empty: the library mishandles truncation itself (skip reason). The
  // skip applies only while the driver's probe reports a library_version
  // starting with truncation_broken_in (the version the bug was recorded
  // for); a driver-specific test asserts the bug is still there in that
  // version (tests/unit/libfabric/lf_quirks_test.cpp). Any other version
  // runs the check.
  std::string truncation_broken;
  std::string truncation_broken_in;
  // Non-empty (the reason): endpoints of one process share library state,
  // so in-process ranks shut down one after the other, in rank order, each
  // polling meanwhile; ranks in processes of their own do not share it.
  std::string shared_in_process;
};

// The registry filled by register_builtin_plugins() (built once).
const PluginRegistry& registry();
// Every built driver times its rows of the variant table (a driver without
// rows gets one default variant named after it).
std::vector<Variant> all_variants();
const Variant* find_variant(const std::string& label);
std::string variant_name(const testing::TestParamInfo<Variant>& info);
void PrintTo(const Variant& v, std::ostream* os);

// The variant's driver_options, plus short connect/shutdown timeouts for
// drivers that have those keys (a failed set-up must not eat the budget).
Config config_for(const Variant& v);

// World size / rank announced by a launcher (mpirun), or -1.
int launcher_size();
int launcher_rank();

std::vector<PeerId> all_but(int rank, int size);
// Deterministic bytes for content checks.
std::vector<std::byte> pattern(size_t n, uint32_t seed);
std::string describe(const Completion& c);

// Bounds a driver call that must return: while a Guard lives, a watchdog
// thread checks its deadline; past it, the process prints what hung (with
// the test's name) and exits with status 1, so a driver that blocks forever
// fails its test with a diagnosis instead of eating the ctest timeout.
class Guard {
 public:
  Guard(const std::string& what, milliseconds limit);
  ~Guard();
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
};

// Memory owned by a Rank: registered with its driver, kept until the driver
// is destroyed.
struct Buffer {
  std::byte* data = nullptr;
  size_t size = 0;
  const Registration* reg = nullptr;
  std::span<std::byte> span() const { return {data, size}; }
  Segment segment(size_t offset, size_t n) const { return Segment{data + offset, n, reg}; }
};

class Shared;  // what the ranks of one run share (barrier, skip reason)

// One rank of a run, as its body sees it. Used from one thread only.
class Rank {
 public:
  Rank(int rank, int size, Driver& driver, Shared& shared);
  ~Rank();

  int rank() const { return rank_; }
  int size() const { return size_; }
  Driver& driver() { return driver_; }
  const Capabilities& caps() const { return caps_; }
  // "rank 1 (tcp)": prefix for failure messages.
  std::string who() const;

  // `n` bytes filled with `fill`, registered with this rank's driver.
  Buffer& buffer(size_t n, std::byte fill = std::byte{0});

  // Polls until `n` completions are queued (failing after `timeout`);
  // returns up to `n` of them in arrival order.
  std::vector<Completion> take(size_t n, milliseconds timeout = kOpTimeout);
  // Polls until a completion satisfying `pred` is queued; removes and
  // returns it (nullopt after `timeout`, without failing).
  std::optional<Completion> take_if(const std::function<bool(const Completion&)>& pred,
                                    milliseconds timeout = kOpTimeout);
  // Polls for `quiet` and returns everything queued.
  std::vector<Completion> drain(milliseconds quiet);
  // One poll (bounded by a Guard). Busy-polls: the harness never relies on
  // wait() (DriverContract.WaitHonoursItsTimeout checks it separately).
  void pump();

  // All ranks of the run meet here (polling this rank's driver meanwhile;
  // what arrives is queued).
  void barrier();
  // Marks the test as not run (every rank of a run must decide alike).
  void skip(const std::string& reason);

  // Completions left unconsumed (checked by the harness after the body).
  const std::deque<Completion>& queued() const { return queue_; }
  // Teardown: drivers are shut down and destroyed before the buffers go.
  void release_registrations();

 private:
  int rank_;
  int size_;
  Driver& driver_;
  Shared& shared_;
  Capabilities caps_;
  std::string poll_what_;  // for the poll() Guard
  std::deque<Completion> queue_;
  std::vector<std::unique_ptr<std::byte[]>> memory_;
  std::vector<RegistrationPtr> registrations_;
  std::deque<Buffer> buffers_;
};

using Body = std::function<void(Rank&)>;

// Runs `body` on every rank of a `ranks`-rank run of `variant`. Returns the
// reason when the test was not run (GTEST_SKIP it); failures are reported
// through gtest.
std::optional<std::string> run_ranks(const Variant& variant, int ranks, const Body& body);

// Skip checks shared by tests that do not use run_ranks: the driver's probe
// (DriverProbe::can_run, and variants_not_here for the variant's
// probe_variant) and whether this process can run the variant at all
// (launcher). Nothing else decides "not run": what passes these checks must
// run, and failing to create its driver is a test failure.
std::optional<std::string> cannot_run_here(const Variant& variant);

// The library version the variant's driver probe reports ("libfabric
// 1.17.0", "Open MPI v4.1.4"), "" when the driver is not built.
std::string library_version(const Variant& variant);

// The reason to skip a truncation check for a library bug recorded for the
// library version the driver's probe reports now (nullopt otherwise: run).
std::optional<std::string> known_truncation_bug(const Variant& variant);

// Removes what a process killed without cleanup left in /dev/shm: entries
// named "<pid>:..." (libfabric's shm provider names its regions so).
void remove_shm_litter(int pid);

// The body of a child process started by the killed-peer test
// (`--conformance-child LABEL FD`); returns the exit code.
int child_main(const std::string& label, int fd);

// The parameterized suite: one TEST_P per contract item.
class DriverContract : public testing::TestWithParam<Variant> {};

}  // namespace evb::conformance

// In a TEST_P body: runs the body (a lambda taking Rank&) on `nranks`
// ranks of GetParam(); skips the test when it could not run.
#define CONFORMANCE_RUN(nranks, ...)                                      \
  do {                                                                    \
    if (auto conformance_skip_ = ::evb::conformance::run_ranks(           \
            GetParam(), (nranks), ::evb::conformance::Body(__VA_ARGS__))) \
      GTEST_SKIP() << *conformance_skip_;                                 \
  } while (0)
