// The `background:` list: congestors with a default for every field but
// `pattern`, written back in canonical form that reads back the same,
// refused with the entry, the field and file:line, and only beside an event
// builder (docs/USER_GUIDE.md, "Background traffic").
#include <gtest/gtest.h>

#include <algorithm>

#include "config_error_of.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "core/topology.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

using BackgroundConfig = test::WithDefaultDriver;

using test::error_of;

TEST_F(BackgroundConfig, TheIssuesShapeReadsAndRoundTrips) {
  const Config c = load_config_text(
      "background: [{pattern: incast, ranks: 3, size: 256KiB, in_flight: 8, start: 1s, stop: 3s},"
      " {pattern: one-to-one, shift: 2}]\n",
      "run.yaml", {}, test::real_plugins());
  ASSERT_EQ(c.background.size(), 2u);
  const BackgroundSpec& a = c.background[0];
  EXPECT_EQ(a.pattern, BackgroundSpec::Pattern::incast);
  EXPECT_EQ(a.ranks, 3);
  EXPECT_EQ(a.size, 256u * 1024);
  EXPECT_EQ(a.in_flight, 8);
  EXPECT_DOUBLE_EQ(a.start_s, 1.0);
  EXPECT_DOUBLE_EQ(a.stop_s, 3.0);
  const BackgroundSpec& b = c.background[1];
  const BackgroundSpec defaults;
  EXPECT_EQ(b.pattern, BackgroundSpec::Pattern::one_to_one);
  EXPECT_EQ(b.shift, 2);
  EXPECT_EQ(b.ranks, defaults.ranks);
  EXPECT_LT(b.stop_s, 0);  // to the run's end
  const Config back = load_config_text(to_yaml(c), "resolved.yaml", {}, test::real_plugins());
  EXPECT_EQ(to_yaml(back), to_yaml(c));
  EXPECT_NE(to_json(c).find("\"background\":[{\"pattern\":\"incast\",\"ranks\":3"),
            std::string::npos);
  EXPECT_NE(to_json(c).find("\"stop\":\"end\""), std::string::npos);
}

TEST_F(BackgroundConfig, AStringOfFlowYamlIsTheSameList) {
  // What a scan axis writes (its values are scalars): background: '[...]'.
  const Config c = load_config_text("background: '[{pattern: bcast, ranks: 3}]'\n", "run.yaml", {},
                                    test::real_plugins());
  ASSERT_EQ(c.background.size(), 1u);
  EXPECT_EQ(c.background[0].pattern, BackgroundSpec::Pattern::bcast);
  EXPECT_TRUE(load_config_text("background: '[]'\n", "run.yaml", {}, test::real_plugins())
                  .background.empty());
  EXPECT_HAS(error_of("nodes: 2\nbackground: '[{pattern: gather}]'\n"), "run.yaml:2:");
  EXPECT_HAS(error_of("background: '[{pattern: incast'\n"), "is not a YAML list");
}

TEST_F(BackgroundConfig, EmptyListMeansNone) {
  const Config c = load_config_text("background: []\n", "run.yaml", {}, test::real_plugins());
  EXPECT_TRUE(c.background.empty());
  EXPECT_TRUE(make_topology(c).congestors.empty());
}

TEST_F(BackgroundConfig, ErrorsNameTheEntryTheFieldAndTheLine) {
  EXPECT_HAS(error_of("background: {pattern: incast}\n"), "expected a list of congestors");
  EXPECT_HAS(error_of("background: [{ranks: 3}]\n"), "entry 1: pattern: missing");
  EXPECT_HAS(error_of("background: [{pattern: incast}, {pattern: gather}]\n"),
             "entry 2: pattern: 'gather' is not a pattern");
  EXPECT_HAS(error_of("background: [{pattern: incast, ranks: 1}]\n"), "entry 1: ranks:");
  EXPECT_HAS(error_of("background: [{pattern: incast, size: 8}]\n"), "entry 1: size:");
  EXPECT_HAS(error_of("background: [{pattern: incast, in_flight: 0}]\n"), "entry 1: in_flight:");
  EXPECT_HAS(error_of("background: [{pattern: incast, start: 2s, stop: 1s}]\n"),
             "is not after start");
  EXPECT_HAS(error_of("background: [{pattern: incast, colour: red}]\n"), "unknown field");
  EXPECT_HAS(error_of("background: [{pattern: one-to-one, ranks: 4, shift: 4}]\n"),
             "multiple of ranks");
  EXPECT_HAS(
      error_of("nodes: 2\nbackground:\n  - {pattern: incast}\n  - {pattern: bcast, size: x}\n"),
      "run.yaml:4:");
}

TEST_F(BackgroundConfig, RulesAskTheProtocolTheRunsEndAndTheDriver) {
  EXPECT_HAS(error_of("protocol: one-to-one\nbackground: [{pattern: incast}]\n"),
             "builds no events");
  EXPECT_HAS(error_of("duration: 2s\nwarmup: 0s\nbackground: [{pattern: incast, start: 3s}]\n"),
             "is not before the run's end");
  EXPECT_HAS(error_of("driver: tcp\nbackground: [{pattern: write-incast}]\n"),
             "write-incast: driver tcp has no rdma_write");
  EXPECT_EQ(error_of("protocol: pull-noevm\nbackground: [{pattern: alltoall, ranks: 3}]\n"), "");
}

TEST_F(BackgroundConfig, CongestorsAreRanksAfterTheEventBuilders) {
  const Config c = load_config_text(
      "nodes: 2\nevm: dedicated\nbackground: [{pattern: incast, ranks: 3}, {pattern: bcast}]\n",
      "run.yaml", {}, test::real_plugins());
  const Topology t = make_topology(c);
  ASSERT_EQ(t.congestors.size(), 3u + static_cast<size_t>(BackgroundSpec{}.ranks));
  EXPECT_EQ(t.processes(), t.nprocs + static_cast<int>(t.congestors.size()));
  EXPECT_EQ(t.congestor(t.nprocs - 1), nullptr);
  ASSERT_NE(t.congestor(t.nprocs), nullptr);
  EXPECT_EQ(t.congestor(t.nprocs)->entry, 0);
  EXPECT_EQ(t.congestor(t.nprocs + 3)->entry, 1);
  EXPECT_EQ(t.congestor(t.nprocs + 3)->member, 0);
  // A congestor talks to its own entry only; the event builder never to a congestor.
  EXPECT_EQ(t.peers_of(t.nprocs), (std::vector<int>{t.nprocs + 1, t.nprocs + 2}));
  for (int r = 0; r < t.nprocs; ++r)
    for (int p : t.peers_of(r)) EXPECT_LT(p, t.nprocs);
  EXPECT_FALSE(t.congestors_report);
}

TEST_F(BackgroundConfig, WithAMonitorCongestorsAlsoTalkToTheEvmsRankOnly) {
  for (const char* extra : {"monitor.port: 18999\n", "control: [{at: 1s, parallel: 1}]\n"}) {
    const Config c = load_config_text(
        std::string("nodes: 2\nevm: dedicated\nbackground: [{pattern: incast, ranks: 3}]\n") +
            extra,
        "run.yaml", {}, test::real_plugins());
    const Topology t = make_topology(c);
    ASSERT_TRUE(t.congestors_report) << extra;
    EXPECT_EQ(t.peers_of(t.nprocs), (std::vector<int>{t.evm_rank, t.nprocs + 1, t.nprocs + 2}));
    const std::vector<int> evm = t.peers_of(t.evm_rank);
    for (const CongestorRank& k : t.congestors)
      EXPECT_NE(std::find(evm.begin(), evm.end(), k.rank), evm.end()) << k.rank;
    // The event builder's other ranks still never talk to a congestor.
    for (int r = 0; r < t.nprocs; ++r)
      if (r != t.evm_rank)
        for (int p : t.peers_of(r)) EXPECT_LT(p, t.nprocs);
  }
}

}  // namespace
}  // namespace evb
