// The live page's data (GET /api/state) of hand-built snapshots, parsed
// back (yaml-cpp reads JSON): the schema's keys, the rates computed from
// consecutive snapshots, the history cap, and valid, finite output for an
// empty history and for non-finite inputs.
#include "protocols/monitor/state_json.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace evb {
namespace {

// Two nodes, report `k`: byte counters grow quadratically with k so each
// interval's rate differs; one fault not recovered and one recovered, one
// control change.
MonitorSnapshot snapshot(int k) {
  MonitorSnapshot s;
  s.t_s = 0.8 * k + 0.1;
  s.interval_s = 0.8;
  s.protocol = "push";
  s.variant = "tcp \"loopback\"";
  s.data_path = "send";
  s.nodes = 2;
  s.eb.events_assigned = 500ULL * k + 3;
  s.eb.events_built = 480ULL * k;
  s.eb.bytes_built = 7654321ULL * k * k;
  for (int b = 0; b < 2; ++b) {
    MonitorBu u;
    u.bytes = 3000000ULL * (b + 1) * k * k;
    u.fragments = 40ULL * k;
    u.events_built = 240ULL * k;
    u.events_in_flight = 2;
    u.requests_in_flight = b;
    u.latency_p50_s = 0.0012;
    u.latency_p90_s = 0.0025;
    u.latency_p99_s = 0.004;
    u.reported = true;
    // The unit's own rates (none in the first snapshot); every other one carried.
    u.rate_bytes_per_s = 1.0e9 * (k - 1) * (b + 1);
    u.rate_interval_s = 0.9;
    u.rate_carried = k % 2 == 0;
    s.eb.bus.push_back(u);
    MonitorRu r;
    r.bytes = 3100000ULL * (b + 1) * k;
    r.fragments = 41ULL * k;
    r.rate_factor = b == 0 ? 1.0 : 0.25;
    r.reported = true;
    r.rate_bytes_per_s = 2.0e9 * (k - 1) * (b + 1);
    s.eb.rus.push_back(r);
  }
  s.eb.matrix = {1000ULL * k * k, 2000ULL * k * k, 3000ULL * k, 4000ULL * k};
  for (int i = 0; i < 4; ++i) s.eb.matrix_rate.push_back(1.0e8 * (k - 1) * (i + 1));
  s.eb.faults.push_back({"BU 1", "peer lost", "reassigned", 0.5, 0.7, 1.1, 9});
  s.eb.faults.push_back({"RU 0", "silent", "stopped", 1.5, 2.0, -1, 0});
  s.eb.control.push_back({0.3, "credits", "1", 120, "http"});
  s.eb.params = {1, 1, 4, 0.0005, {1, 0.25}, true};
  return s;
}

std::deque<MonitorSnapshot> run(int reports) {
  std::deque<MonitorSnapshot> h;
  for (int k = 1; k <= reports; ++k) h.push_back(snapshot(k));
  return h;
}

double gbps(uint64_t after, uint64_t before, double dt) {
  return static_cast<double>(after - before) * 8 / dt / 1e9;
}
double gbps(double bytes_per_s) {
  return bytes_per_s * 8 / 1e9;
}

// JsonWriter prints 6 significant digits.
void expect_near(double got, double want) {
  EXPECT_NEAR(got, want, std::abs(want) * 1e-5 + 1e-12) << "want " << want;
}

void expect_keys(const YAML::Node& n, const std::vector<std::string>& keys) {
  ASSERT_TRUE(n.IsMap());
  for (const std::string& k : keys) EXPECT_TRUE(n[k].IsDefined()) << k;
  EXPECT_EQ(n.size(), keys.size());
}

TEST(StateJson, HasTheSchemaThePageReads) {
  const YAML::Node j = YAML::Load(state_json(run(3), "nodes: 2\nvariant: \"x\"\n"));
  expect_keys(j, {"run", "config_yaml", "params", "totals", "history", "bus", "rus", "matrix",
                  "faults", "control"});
  expect_keys(j["run"],
              {"protocol", "variant", "data_path", "nodes", "interval_s", "t_s", "finished"});
  expect_keys(j["params"], {"parallel", "credits", "credits_allocated", "fu.processing_time",
                            "ru_rate_factors", "paused"});
  expect_keys(j["totals"],
              {"events_assigned", "events_built", "events_in_flight", "rate_gbps", "events_per_s"});
  ASSERT_EQ(j["history"].size(), 2u);
  expect_keys(j["history"][0], {"t_s", "rate_gbps", "events_per_s", "bu_gbps", "bu_carried"});
  ASSERT_EQ(j["bus"].size(), 2u);
  expect_keys(j["bus"][1], {"bu", "bytes", "fragments", "events_built", "events_in_flight",
                            "requests_in_flight", "fu_queue", "latency_p50_s", "latency_p90_s",
                            "latency_p99_s", "integrity_errors", "rate_bytes_per_s",
                            "rate_interval_s", "rate_carried", "excluded", "reported", "gbps"});
  ASSERT_EQ(j["rus"].size(), 2u);
  expect_keys(j["rus"][0], {"ru", "bytes", "fragments", "rate_bytes_per_s", "rate_interval_s",
                            "rate_carried", "rate_factor", "masked", "lost", "reported", "gbps"});
  expect_keys(j["matrix"], {"rows", "cols", "bytes", "gbps"});
  ASSERT_EQ(j["faults"].size(), 2u);
  expect_keys(j["faults"][0], {"unit", "cause", "action", "lost_at_s", "detected_at_s",
                               "recovered_at_s", "reassigned"});
  ASSERT_EQ(j["control"].size(), 1u);
  expect_keys(j["control"][0], {"t_s", "key", "value", "from_event", "source"});
}

TEST(StateJson, CarriesTheLatestFigures) {
  const auto h = run(3);
  const MonitorSnapshot& s = h.back();
  const YAML::Node j = YAML::Load(state_json(h, "nodes: 2\nvariant: \"x\"\n"));
  EXPECT_EQ(j["config_yaml"].as<std::string>(), "nodes: 2\nvariant: \"x\"\n");
  EXPECT_EQ(j["run"]["variant"].as<std::string>(), s.variant);
  EXPECT_EQ(j["run"]["nodes"].as<int>(), 2);
  EXPECT_FALSE(j["run"]["finished"].as<bool>());
  EXPECT_EQ(j["totals"]["events_in_flight"].as<uint64_t>(),
            s.eb.events_assigned - s.eb.events_built);
  EXPECT_EQ(j["params"]["credits_allocated"].as<int>(), s.eb.params.credits_allocated);
  expect_near(j["params"]["fu.processing_time"].as<double>(), s.eb.params.processing_time_s);
  EXPECT_EQ(j["params"]["ru_rate_factors"][1].as<double>(), 0.25);
  EXPECT_TRUE(j["params"]["paused"].as<bool>());
  EXPECT_EQ(j["bus"][1]["bytes"].as<uint64_t>(), s.eb.bus[1].bytes);
  EXPECT_EQ(j["bus"][1]["bu"].as<int>(), 1);
  expect_near(j["bus"][0]["latency_p99_s"].as<double>(), s.eb.bus[0].latency_p99_s);
  EXPECT_EQ(j["rus"][1]["rate_factor"].as<double>(), 0.25);
  EXPECT_EQ(j["matrix"]["rows"].as<std::string>(), "ru");
  EXPECT_EQ(j["matrix"]["cols"].as<std::string>(), "bu");
  EXPECT_EQ(j["matrix"]["bytes"][1][0].as<uint64_t>(), s.eb.matrix[1 * 2 + 0]);
  // Recovered: a time; not recovered: null.
  expect_near(j["faults"][0]["recovered_at_s"].as<double>(), s.eb.faults[0].recovered_at_s);
  EXPECT_TRUE(j["faults"][1]["recovered_at_s"].IsNull());
  EXPECT_EQ(j["faults"][0]["reassigned"].as<uint64_t>(), 9u);
  EXPECT_EQ(j["control"][0]["key"].as<std::string>(), "credits");
  EXPECT_EQ(j["control"][0]["from_event"].as<uint64_t>(), 120u);
}

// The EVM's rates come from consecutive snapshots (its own clock); each
// unit's rate and the matrix are the ones the unit measured by its clock,
// as the snapshot holds them, carried forward ones marked.
TEST(StateJson, RatesComeFromConsecutiveSnapshotsAndTheUnitsOwnClocks) {
  const auto h = run(4);
  const YAML::Node j = YAML::Load(state_json(h, ""));
  const YAML::Node hist = j["history"];
  ASSERT_EQ(hist.size(), h.size() - 1);
  for (size_t i = 1; i < h.size(); ++i) {
    const MonitorSnapshot &a = h[i - 1], &b = h[i];
    const double dt = b.t_s - a.t_s;
    const YAML::Node e = hist[i - 1];
    expect_near(e["t_s"].as<double>(), b.t_s);
    expect_near(e["rate_gbps"].as<double>(), gbps(b.eb.bytes_built, a.eb.bytes_built, dt));
    expect_near(e["events_per_s"].as<double>(),
                static_cast<double>(b.eb.events_built - a.eb.events_built) / dt);
    ASSERT_EQ(e["bu_gbps"].size(), b.eb.bus.size());
    ASSERT_EQ(e["bu_carried"].size(), b.eb.bus.size());
    for (size_t u = 0; u < b.eb.bus.size(); ++u) {
      expect_near(e["bu_gbps"][u].as<double>(), gbps(b.eb.bus[u].rate_bytes_per_s));
      EXPECT_EQ(e["bu_carried"][u].as<bool>(), b.eb.bus[u].rate_carried);
    }
  }
  // The latest interval: totals, per BU, the matrix.
  const MonitorSnapshot &a = h[h.size() - 2], &b = h.back();
  const double dt = b.t_s - a.t_s;
  expect_near(j["totals"]["rate_gbps"].as<double>(), gbps(b.eb.bytes_built, a.eb.bytes_built, dt));
  expect_near(j["totals"]["events_per_s"].as<double>(),
              static_cast<double>(b.eb.events_built - a.eb.events_built) / dt);
  expect_near(j["bus"][1]["gbps"].as<double>(), gbps(b.eb.bus[1].rate_bytes_per_s));
  EXPECT_EQ(j["bus"][1]["rate_carried"].as<bool>(), b.eb.bus[1].rate_carried);
  expect_near(j["rus"][1]["gbps"].as<double>(), gbps(b.eb.rus[1].rate_bytes_per_s));
  for (size_t ru = 0; ru < 2; ++ru) {
    for (size_t bu = 0; bu < 2; ++bu) {
      expect_near(j["matrix"]["gbps"][ru][bu].as<double>(), gbps(b.eb.matrix_rate[ru * 2 + bu]));
    }
  }
  // The rates differ between intervals (the inputs grow quadratically).
  EXPECT_LT(hist[0]["rate_gbps"].as<double>(), hist[2]["rate_gbps"].as<double>());
}

TEST(StateJson, OneSnapshotHasNoRatesYet) {
  const YAML::Node j = YAML::Load(state_json(run(1), ""));
  EXPECT_EQ(j["history"].size(), 0u);
  EXPECT_EQ(j["totals"]["rate_gbps"].as<double>(), 0.0);
  EXPECT_EQ(j["bus"][0]["gbps"].as<double>(), 0.0);
  EXPECT_EQ(j["matrix"]["gbps"][0][1].as<double>(), 0.0);
  EXPECT_EQ(j["matrix"]["gbps"].size(), 2u);
}

TEST(StateJson, HistoryKeepsTheLast600Points) {
  const auto h = run(700);
  const YAML::Node hist = YAML::Load(state_json(h, ""))["history"];
  ASSERT_EQ(hist.size(), 600u);
  expect_near(hist[599]["t_s"].as<double>(), h.back().t_s);
  expect_near(hist[0]["t_s"].as<double>(), h[h.size() - 600].t_s);
}

TEST(StateJson, EmptyHistoryIsValidAndEmpty) {
  const YAML::Node j = YAML::Load(state_json({}, ""));
  EXPECT_EQ(j["run"]["nodes"].as<int>(), 0);
  for (const char* k : {"history", "bus", "rus", "faults", "control"}) {
    EXPECT_TRUE(j[k].IsSequence()) << k;
    EXPECT_EQ(j[k].size(), 0u) << k;
  }
  EXPECT_EQ(j["matrix"]["bytes"].size(), 0u);
  EXPECT_EQ(j["params"]["ru_rate_factors"].size(), 0u);
}

TEST(StateJson, NumbersStayFinite) {
  auto h = run(2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  h.back().eb.bus[0].latency_p50_s = nan;
  h.back().eb.rus[1].rate_factor = inf;
  h.back().eb.params.processing_time_s = -inf;
  h.back().eb.bus[1].rate_bytes_per_s = nan;
  h.front().t_s = h.back().t_s;  // no time between the two: no rate
  const std::string text = state_json(h, "");
  for (const char* bad : {"nan", "inf", "NaN", "Inf"}) {
    EXPECT_EQ(text.find(bad), std::string::npos) << bad;
  }
  const YAML::Node j = YAML::Load(text);
  EXPECT_EQ(j["bus"][0]["latency_p50_s"].as<double>(), 0.0);
  EXPECT_EQ(j["rus"][1]["rate_factor"].as<double>(), 0.0);
  EXPECT_EQ(j["params"]["fu.processing_time"].as<double>(), 0.0);
  EXPECT_EQ(j["totals"]["rate_gbps"].as<double>(), 0.0);
  EXPECT_EQ(j["history"][0]["bu_gbps"][1].as<double>(), 0.0);  // a non-finite unit rate
  EXPECT_EQ(j["bus"][1]["gbps"].as<double>(), 0.0);
}

}  // namespace
}  // namespace evb
