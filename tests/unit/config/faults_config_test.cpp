// on_failure, failure_detection and the `faults:` list: parsed, written back
// in canonical form, and refused with the entry and key named.
#include <gtest/gtest.h>

#include "config_error_of.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

using FaultsConfig = test::WithDefaultDriver;

using test::error_of;

TEST_F(FaultsConfig, ParsesEveryKindAndRoundTrips) {
  const Config c = load_config_text(
      "on_failure: exclude\nlayout: split\nfailure_detection: 300ms\nfaults:\n"
      "  - {at: 2s, kill: bu2}\n  - {at: 1s, stall: ru1, for: 800ms}\n"
      "  - {at: 3s, delay: ru0, by: 5ms, for: 1s}\n",
      "run.yaml", {}, test::real_plugins());
  EXPECT_EQ(c.on_failure, OnFailure::exclude);
  EXPECT_DOUBLE_EQ(c.failure_detection_s, 0.3);
  ASSERT_EQ(c.faults.size(), 3u);
  EXPECT_EQ(c.faults[0].kind, FaultSpec::Kind::kill);
  EXPECT_EQ(c.faults[0].unit, "bu2");
  EXPECT_DOUBLE_EQ(c.faults[0].at_s, 2.0);
  EXPECT_EQ(c.faults[1].kind, FaultSpec::Kind::stall);
  EXPECT_DOUBLE_EQ(c.faults[1].for_s, 0.8);
  EXPECT_EQ(c.faults[2].kind, FaultSpec::Kind::delay);
  EXPECT_DOUBLE_EQ(c.faults[2].by_s, 0.005);
  // The resolved YAML loads back to the same list.
  const Config back = load_config_text(to_yaml(c), "resolved.yaml", {}, test::real_plugins());
  ASSERT_EQ(back.faults.size(), 3u);
  EXPECT_EQ(back.faults[2].unit, "ru0");
  EXPECT_DOUBLE_EQ(back.faults[2].for_s, 1.0);
  EXPECT_EQ(to_yaml(back), to_yaml(c));
}

TEST_F(FaultsConfig, SetOverrideTakesAList) {
  const Config c =
      load_config_text("layout: split\n", "run.yaml", {"faults=[{at: 1s, stall: bu1, for: 200ms}]"},
                       test::real_plugins());
  ASSERT_EQ(c.faults.size(), 1u);
  EXPECT_EQ(c.faults[0].unit, "bu1");
}

TEST_F(FaultsConfig, ErrorsNameTheEntryAndKey) {
  EXPECT_HAS(error_of("faults:\n  - {at: 1s, kill: bu1}\n  - {at: 2s, stall: ru1}\n"),
             "entry 2: for:");
  EXPECT_HAS(error_of("faults: [{at: soon, kill: bu1}]\n"), "entry 1: at:");
  EXPECT_HAS(error_of("faults: [{at: 1s, kill: xu1}]\n"), "entry 1: kill: 'xu1' is not a unit");
  EXPECT_HAS(error_of("faults: [{at: 1s, kill: bu1, stall: bu2, for: 1s}]\n"),
             "entry 1: expected exactly one of kill, stall, delay");
  EXPECT_HAS(error_of("faults: [{at: 1s, delay: ru1, for: 1s}]\n"), "entry 1: by:");
  EXPECT_HAS(error_of("faults: [{kill: bu1}]\n"), "entry 1: at: missing");
  EXPECT_HAS(error_of("faults: [{at: 1s, kill: bu1, fro: 2s}]\n"), "did you mean 'for'?");
  EXPECT_HAS(error_of("faults: [{at: 1s, kill: bu9}]\n"), "bu9 does not exist with nodes 4");
  EXPECT_HAS(error_of("faults: [{at: 1s, kill: bu9}]\n"), "run.yaml:");
}

TEST_F(FaultsConfig, CorruptEntryIsFaultCorrupt) {
  const Config c =
      load_config_text("faults:\n  - {corrupt: 0.001}\n  - {at: 1s, stall: ru1, for: 1s}\n",
                       "run.yaml", {}, test::real_plugins());
  ASSERT_EQ(c.faults.size(), 2u);
  EXPECT_EQ(c.faults[0].kind, FaultSpec::Kind::corrupt);
  EXPECT_DOUBLE_EQ(c.faults[0].probability, 0.001);
  EXPECT_DOUBLE_EQ(c.corrupt_probability, 0.001);  // what the BUs read
  const Config back = load_config_text(to_yaml(c), "resolved.yaml", {}, test::real_plugins());
  EXPECT_EQ(to_yaml(back), to_yaml(c));
  EXPECT_DOUBLE_EQ(back.corrupt_probability, 0.001);
  // Both spellings agreeing is fine; disagreeing is a contradiction.
  EXPECT_EQ(error_of("fault.corrupt: 0.01\nfaults: [{corrupt: 0.01}]\n"), "");
  EXPECT_HAS(error_of("fault.corrupt: 0.02\nfaults: [{corrupt: 0.01}]\n"),
             "contradicts run.yaml:1:1: fault.corrupt");
}

TEST_F(FaultsConfig, CorruptEntryErrors) {
  EXPECT_HAS(error_of("faults: [{corrupt: 2}]\n"), "entry 1: corrupt: expected a probability");
  EXPECT_HAS(error_of("faults: [{corrupt: 0}]\n"), "entry 1: corrupt: expected a probability");
  EXPECT_HAS(error_of("faults: [{corrupt: often}]\n"), "got 'often'");
  EXPECT_HAS(error_of("faults: [{at: 1s, corrupt: 0.1}]\n"), "entry 1: at: corrupt applies");
  EXPECT_HAS(error_of("faults: [{corrupt: 0.1}, {corrupt: 0.2}]\n"), "entry 2: corrupt: only one");
  EXPECT_HAS(error_of("faults: [{corrupt: 0.1, kill: bu1}]\n"), "expected exactly one of");
  EXPECT_HAS(error_of("protocol: one-to-one\nfaults: [{corrupt: 0.1}]\n"), "builds no events");
}

// {at, desync: ruN, by: K}: K whole events either way, written back as given.
TEST_F(FaultsConfig, DesyncEntryParsesAndRoundTrips) {
  const Config c = load_config_text(
      "faults:\n  - {at: 2s, desync: ru1, by: 3}\n  - {by: -1, desync: ru2, at: 500ms}\n",
      "run.yaml", {}, test::real_plugins());
  ASSERT_EQ(c.faults.size(), 2u);
  EXPECT_EQ(c.faults[0].kind, FaultSpec::Kind::desync);
  EXPECT_EQ(c.faults[0].unit, "ru1");
  EXPECT_DOUBLE_EQ(c.faults[0].at_s, 2.0);
  EXPECT_EQ(c.faults[0].by_events, 3);
  EXPECT_EQ(c.faults[1].by_events, -1);  // `by` before the kind: read once the kind is known
  EXPECT_DOUBLE_EQ(c.faults[1].at_s, 0.5);
  const std::string yaml = to_yaml(c);
  EXPECT_HAS(yaml, "{at: 2, desync: ru1, by: 3}");
  EXPECT_HAS(yaml, "{at: 0.5, desync: ru2, by: -1}");
  EXPECT_HAS(to_json(c), "{\"at\":2,\"desync\":\"ru1\",\"by\":3}");
  const Config back = load_config_text(yaml, "resolved.yaml", {}, test::real_plugins());
  EXPECT_EQ(to_yaml(back), yaml);
  EXPECT_EQ(back.faults[1].by_events, -1);
}

TEST_F(FaultsConfig, DesyncEntryErrors) {
  EXPECT_HAS(error_of("faults: [{at: 1s, desync: ru1}]\n"),
             "entry 1: by: a desync needs a non-zero whole number of events");
  EXPECT_HAS(error_of("faults: [{at: 1s, desync: ru1, by: 0}]\n"), "got '0'");
  EXPECT_HAS(error_of("faults: [{at: 1s, desync: ru1, by: 2.5}]\n"), "got '2.5'");
  EXPECT_HAS(error_of("faults: [{at: 1s, desync: ru1, by: 5ms}]\n"), "got '5ms'");
  EXPECT_HAS(error_of("faults: [{at: 1s, desync: ru1, by: 3, for: 1s}]\n"),
             "entry 1: for: a desync lasts to the end of the run");
  EXPECT_HAS(error_of("faults: [{desync: ru1, by: 3}]\n"), "entry 1: at: missing");
  EXPECT_HAS(error_of("faults: [{at: 1s, desync: bu1, by: 3}]\n"),
             "entry 1: desync: 'bu1' is not an RU");
  EXPECT_HAS(error_of("faults: [{at: 1s, desync: evm, by: 3}]\n"), "is not an RU");
  EXPECT_HAS(error_of("faults: [{at: 1s, desync: ru9, by: 3}]\n"),
             "ru9 does not exist with nodes 4");
  EXPECT_HAS(error_of("protocol: one-to-one\nfaults: [{at: 1s, desync: ru1, by: 3}]\n"),
             "has no RUs or BUs");
  EXPECT_HAS(error_of("protocol: push\nnodes: 1\nfaults: [{at: 1s, desync: ru0, by: 3}]\n"),
             "nodes 2 or more");
  EXPECT_EQ(error_of("protocol: pull\nnodes: 1\nfaults: [{at: 1s, desync: ru0, by: 3}]\n"), "");
  // A delay's `by` stays a duration.
  EXPECT_HAS(error_of("faults: [{at: 1s, delay: ru1, by: 3x, for: 1s}]\n"),
             "entry 1: by: expected a duration");
  EXPECT_HAS(error_of("faults: [{at: 1s, stall: ru1, by: 3, for: 1s}]\n"),
             "by: only a delay or a desync takes by");
}

TEST_F(FaultsConfig, ExcludeNeedsAnEvmAndSparesRankZero) {
  EXPECT_HAS(error_of("on_failure: exclude\nprotocol: pull-noevm\n"), "has none");
  EXPECT_HAS(error_of("on_failure: exclude\nfaults: [{at: 1s, kill: bu0}]\n"), "rank 0");
  EXPECT_EQ(error_of("on_failure: exclude\nlayout: split\nfaults: [{at: 1s, kill: bu0}]\n"), "");
  EXPECT_EQ(error_of("faults: [{at: 1s, kill: bu0}]\n"), "");  // abort: nothing to protect
}

TEST(FaultsConfigMpi, ExcludeRefusesADriverThatDiesWithItsPeer) {
  if (!test::built("mpi")) GTEST_SKIP() << "driver mpi is not built";
  EXPECT_HAS(error_of("on_failure: exclude\ndriver: mpi\n"), "ends the whole job");
}

// The mpi bootstrap gathers results with MPI collectives: Open MPI ends the
// job when a rank dies, so exclude is refused at validation, naming why; the
// env and local bootstraps go on without the lost rank.
TEST(FaultsConfigMpi, ExcludeRefusesTheMpiBootstrapAndTakesEnv) {
  const auto& b = test::real_plugins().bootstraps;
  if (std::find(b.begin(), b.end(), "mpi") == b.end()) GTEST_SKIP() << "bootstrap mpi not built";
  const std::string e = error_of("on_failure: exclude\nbootstrap: mpi\n");
  EXPECT_HAS(e, "bootstrap mpi");
  EXPECT_HAS(e, "ends the whole job when a rank dies");
  EXPECT_HAS(e, "bootstrap env");
  EXPECT_EQ(error_of("on_failure: exclude\nbootstrap: env\n"), "");
  EXPECT_EQ(error_of("on_failure: exclude\nbootstrap: local\n"), "");
  EXPECT_EQ(error_of("bootstrap: mpi\n"), "");  // abort: nothing to survive
}

// libfabric survives a lost peer over its ofi_rxm providers; the others are
// refused when the driver starts (the provider, `auto` included, is only
// known then: test fault_exclude_libfabric_shm_refused).
TEST(FaultsConfigLibfabric, ExcludeIsAcceptedAtValidation) {
  if (!test::built("libfabric")) GTEST_SKIP() << "driver libfabric is not built";
  EXPECT_EQ(error_of("on_failure: exclude\ndriver: libfabric\n"), "");
  EXPECT_EQ(error_of("driver: libfabric\n"), "");
}

}  // namespace
}  // namespace evb
