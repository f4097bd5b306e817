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
    for (int r = 0; r < t.nprocs; ++r) {
      if (r == t.evm_rank) continue;
      for (int p : t.peers_of(r)) EXPECT_LT(p, t.nprocs);
    }
  }
}

// `ranks: P%`: that share of the run's nodes (hosts) each get one congestor
// rank, rounded to the nearest whole (halves up), at least 2; written back
// as the share, echoed in JSON as the ranks it resolved to.
TEST_F(BackgroundConfig, RanksAsAShareOfHostsResolveFromNodes) {
  auto ranks = [](const std::string& yaml) {
    return load_config_text(yaml, "run.yaml", {}, test::real_plugins()).background.at(0).ranks;
  };
  EXPECT_EQ(ranks("nodes: 8\nbackground: [{pattern: incast, ranks: 50%}]\n"), 4);
  EXPECT_EQ(ranks("nodes: 8\nbackground: [{pattern: incast, ranks: 100%}]\n"), 8);
  EXPECT_EQ(ranks("nodes: 8\nbackground: [{pattern: incast, ranks: 12.5%}]\n"), 2);
  EXPECT_EQ(ranks("nodes: 10\nbackground: [{pattern: incast, ranks: 25%}]\n"), 3);  // 2.5 up
  EXPECT_EQ(ranks("nodes: 10\nbackground: [{pattern: incast, ranks: 1%}]\n"), 2);   // at least 2
  // The share is of the nodes however they were given, whichever comes first.
  EXPECT_EQ(ranks("background: [{pattern: alltoall, ranks: 75%}]\nnodes: 4\n"), 3);
  const Config c = load_config_text("nodes: 6\nbackground: [{pattern: incast, ranks: 50%}]\n",
                                    "run.yaml", {"nodes=4"}, test::real_plugins());
  EXPECT_EQ(c.background[0].ranks, 2);
  EXPECT_DOUBLE_EQ(c.background[0].hosts_percent, 50);
  EXPECT_NE(to_yaml(c).find("ranks: 50%"), std::string::npos) << to_yaml(c);
  const Config back = load_config_text(to_yaml(c), "resolved.yaml", {}, test::real_plugins());
  EXPECT_EQ(to_yaml(back), to_yaml(c));
  EXPECT_EQ(back.background[0].ranks, 2);
  EXPECT_NE(to_json(c).find("\"ranks\":2,\"hosts_percent\":50,"), std::string::npos);
  // A count given after a share replaces it.
  const Config n =
      load_config_text("background: [{pattern: incast, ranks: 50%}]\n", "run.yaml",
                       {"background=[{pattern: incast, ranks: 3}]"}, test::real_plugins());
  EXPECT_EQ(n.background[0].ranks, 3);
  EXPECT_EQ(n.background[0].hosts_percent, 0);
}

TEST_F(BackgroundConfig, ABadShareIsRefusedWithTheEntryTheFieldAndTheLine) {
  for (const char* bad : {"0%", "-5%", "150%", "100.5%", "x%", "50%%", "5 0%"}) {
    const std::string e =
        error_of(std::string("nodes: 4\nbackground:\n  - {pattern: incast, ranks: ") + bad + "}\n");
    EXPECT_HAS(e, "run.yaml:3:");
    EXPECT_HAS(e, "background: entry 1: ranks:");
    EXPECT_HAS(e, "share of the run's hosts");
  }
  EXPECT_HAS(error_of("background: [{pattern: incast, ranks: half}]\n"),
             "or a share of hosts such as 50%, got 'half'");
  // One-to-one's shift is checked against the ranks the share resolves to.
  EXPECT_EQ(error_of("nodes: 8\nbackground: [{pattern: one-to-one, ranks: 50%, shift: 3}]\n"), "");
  const std::string e =
      error_of("nodes: 8\nbackground:\n  - {pattern: one-to-one, ranks: 50%, shift: 4}\n");
  EXPECT_HAS(e, "run.yaml:2:");
  EXPECT_HAS(e, "background: entry 1: shift: 4 is a multiple of ranks (4, 50% of hosts)");
}

TEST_F(BackgroundConfig, ASharesRanksStandForTheBuildersNodesSpreadOverThem) {
  const Config c = load_config_text(
      "nodes: 8\nevm: dedicated\nbackground: [{pattern: incast, ranks: 50%}, "
      "{pattern: bcast, ranks: 2}]\n",
      "run.yaml", {}, test::real_plugins());
  const Topology t = make_topology(c);
  ASSERT_EQ(t.congestors.size(), 6u);
  std::vector<int> nodes;
  for (const CongestorRank& k : t.congestors) nodes.push_back(k.node);
  // The share's four ranks on every other builder node; the count's two on
  // nodes of their own after the EVM's (node 8).
  EXPECT_EQ(nodes, (std::vector<int>{0, 2, 4, 6, 9, 10}));
  EXPECT_EQ(t.congestors.front().rank, t.nprocs);
}

}  // namespace
}  // namespace evb
