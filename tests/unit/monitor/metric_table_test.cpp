// The metric descriptor table against what is made from it: every series a
// family's reader gives carries exactly the labels the row declares (so the
// docs' Labels column is true), names are unique and counters end in
// _total, every /api/state key a row names is in /api/state, and the run's,
// a BU's or an RU's series there hold the same figures as /metrics.
#include "protocols/monitor/metric_table.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <deque>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocols/monitor/state_json.hpp"
#include "protocols/monitor/traffic.hpp"
#include "synthetic_snapshot.hpp"

namespace evb {
namespace {

// Three nodes, report `k`, with a fault of each kind and a control change:
// every family has series.
MonitorSnapshot snapshot(int k) {
  MonitorSnapshot s;
  s.t_s = 1.25 * k;
  s.interval_s = 1.25;
  s.protocol = "pull";
  s.variant = "tcp";
  s.data_path = "send";
  s.nodes = 3;
  s.eb.events_assigned = 100ULL * k + 2;
  s.eb.events_built = 100ULL * k;
  s.eb.bytes_built = 7000ULL * k * k;
  for (int i = 0; i < 3; ++i) {
    MonitorBu b;
    b.bytes = 900ULL * (i + 1) * k;
    b.fragments = 3ULL * (i + 1) * k;
    b.events_built = 30ULL * k + i;
    b.events_in_flight = i + 1;
    b.requests_in_flight = i;
    b.fu_queue = 2 * i;
    b.latency_p50_s = 0.25 * (i + 1);
    b.latency_p90_s = 0.5 * (i + 1);
    b.latency_p99_s = 0.75 * (i + 1);
    b.integrity_errors = i;
    b.excluded = i == 2;
    b.reported = true;
    s.eb.bus.push_back(b);
    MonitorRu r;
    r.bytes = 800ULL * (i + 1) * k;
    r.fragments = 4ULL * (i + 1) * k;
    r.rate_factor = i == 1 ? 0.5 : 1.0;
    r.masked = i == 0;
    r.lost = i == 0;
    r.reported = true;
    s.eb.rus.push_back(r);
  }
  for (int i = 0; i < 9; ++i) s.eb.matrix.push_back(10ULL * (i + 1) * k);
  s.eb.faults.push_back({"BU 2", "peer lost", "reassigned", 0.5, 0.75, 1.5, 4});
  s.eb.faults.push_back({"RU 0", "silent", "masked", 1.0, 1.25, -1, 0});
  s.eb.control.push_back({0.25, "parallel", "2", 12, "http"});
  s.eb.params = {2, 3, 4, 0.001, {1, 0.5, 1}, false};
  s.background.push_back({"incast", 3, 3, 2, true, 40ULL * k, 2621440ULL * k, 1.5e9, false});
  s.background.push_back({"alltoall", 4, 2, 0, false, 7ULL * k, 458752ULL * k, 0.0, true});
  return s;
}

TEST(MetricTable, NamesAreUniqueAndCountersEndInTotal) {
  std::set<std::string> names;
  for (const MetricDescriptor& d : metric_table()) {
    EXPECT_TRUE(names.insert(d.name).second) << d.name;
    EXPECT_EQ(d.name.rfind("evbench_", 0), 0u) << d.name;
    const bool total = d.name.size() > 6 && d.name.substr(d.name.size() - 6) == "_total";
    EXPECT_EQ(total, d.type == MetricType::counter) << d.name;
    EXPECT_FALSE(d.help.empty()) << d.name;
    EXPECT_FALSE(d.unit.empty()) << d.name;
  }
}

TEST(MetricTable, EverySeriesHasTheDeclaredLabels) {
  const MonitorSnapshot before = snapshot(1), latest = snapshot(2);
  // A run over the full matrix's bound has the grouped traffic family.
  const MonitorSnapshot large_before = test_support::synthetic_snapshot(kMatrixFullNodes + 1, 1);
  const MonitorSnapshot large = test_support::synthetic_snapshot(kMatrixFullNodes + 1, 2);
  for (const MetricDescriptor& d : metric_table()) {
    std::vector<MetricSample> samples = d.read({latest, &before});
    if (samples.empty()) samples = d.read({large, &large_before});
    EXPECT_FALSE(samples.empty()) << d.name;
    for (const MetricSample& s : samples) {
      ASSERT_EQ(s.labels.size(), d.labels.size()) << d.name;
      for (size_t i = 0; i < s.labels.size(); ++i) {
        EXPECT_EQ(s.labels[i].first, d.labels[i].name) << d.name;
      }
    }
  }
}

// Whether `key` ("bus[].gbps", "params.fu.processing_time", "control[]") is
// in `root`: `[]` takes an array's first element; a key may hold dots.
// Nodes are rebound with reset(): yaml-cpp's `=` would copy into them.
bool has(const YAML::Node& root, const std::string& key) {
  std::vector<std::string> parts;
  std::stringstream in(key);
  for (std::string p; std::getline(in, p, '.');) parts.push_back(p);
  YAML::Node n;
  n.reset(root);
  for (size_t i = 0; i < parts.size();) {
    size_t next = i;
    for (size_t j = parts.size(); j > i && next == i; --j) {
      std::string name;
      for (size_t k = i; k < j; ++k) name += (k > i ? "." : "") + parts[k];
      const bool array = name.size() > 2 && name.substr(name.size() - 2) == "[]";
      if (array) name.resize(name.size() - 2);
      const YAML::Node& view = n;
      if (!view.IsMap() || !view[name]) continue;
      YAML::Node child;
      child.reset(view[name]);
      if (array) {
        if (!child.IsSequence() || child.size() == 0) return false;
        const YAML::Node& seq = child;
        child.reset(seq[0]);
      }
      n.reset(child);
      next = j;
    }
    if (next == i) return false;
    i = next;
  }
  return true;
}

TEST(MetricTable, EveryStateKeyIsInApiState) {
  const std::deque<MonitorSnapshot> h{snapshot(1), snapshot(2)};
  const YAML::Node state = YAML::Load(state_json(h, "nodes: 3\n"));
  size_t keys = 0;
  for (const MetricDescriptor& d : metric_table()) {
    for (const std::string& key : d.state) {
      EXPECT_TRUE(has(state, key)) << d.name << ": " << key;
      ++keys;
    }
  }
  EXPECT_GT(keys, 0u);
  EXPECT_FALSE(has(state, "bus[].no_such_key"));
  EXPECT_FALSE(has(state, "params.fu"));
}

// A per-unit family (a `bu` or `ru` label alone) names one key of bus[] or
// rus[]; its series hold the figures /api/state gives under that key.
TEST(MetricTable, UnitSeriesMatchApiState) {
  const std::deque<MonitorSnapshot> h{snapshot(1), snapshot(2)};
  const YAML::Node state = YAML::Load(state_json(h, "nodes: 3\n"));
  size_t checked = 0;
  for (const MetricDescriptor& d : metric_table()) {
    if (d.labels.size() != 1 || (d.labels[0].name != "bu" && d.labels[0].name != "ru")) continue;
    const std::string array = d.labels[0].name + "s";
    const std::string prefix = array + "[].";
    if (d.state.empty() || d.state[0].rfind(prefix, 0) != 0) continue;
    const std::string key = d.state[0].substr(prefix.size());
    if (key == "gbps") continue;  // Gb/s there, bytes/s here
    for (const MetricSample& s : d.read({h.back(), &h.front()})) {
      const size_t i = std::stoul(s.labels[0].second);
      const double want = std::visit([](auto v) { return static_cast<double>(v); }, s.value);
      const YAML::Node got = state[array][i][key];
      ASSERT_TRUE(got.IsDefined()) << d.name;
      const double v =
          got.IsScalar() && (got.as<std::string>() == "true" || got.as<std::string>() == "false")
              ? static_cast<double>(got.as<bool>())
              : got.as<double>();
      EXPECT_DOUBLE_EQ(v, want) << d.name << " " << array << "[" << i << "]." << key;
      ++checked;
    }
  }
  EXPECT_GT(checked, 0u);
}

// A run-wide family read through a run field (figures.hpp) names that
// field's key first; its one series holds what /api/state gives there, and
// every run field but the Gb/s rate (bytes/s in /metrics) has such a family.
TEST(MetricTable, RunSeriesMatchApiState) {
  const std::deque<MonitorSnapshot> h{snapshot(1), snapshot(2)};
  const YAML::Node state = YAML::Load(state_json(h, "nodes: 3\n"));
  std::set<std::string> covered;
  for (const MetricDescriptor& d : metric_table()) {
    if (!d.labels.empty() || d.state.empty()) continue;
    for (const RunField& f : run_fields()) {
      const std::string path = std::string(f.group) + "." + std::string(f.key);
      if (d.state[0] != path || f.key == "rate_gbps") continue;
      const std::vector<MetricSample> samples = d.read({h.back(), &h.front()});
      ASSERT_EQ(samples.size(), 1u) << d.name;
      const double want =
          std::visit([](auto v) { return static_cast<double>(v); }, samples[0].value);
      const YAML::Node got = state[std::string(f.group)][std::string(f.key)];
      ASSERT_TRUE(got.IsDefined()) << path;
      const double v = got.as<std::string>() == "true"    ? 1.0
                       : got.as<std::string>() == "false" ? 0.0
                                                          : got.as<double>();
      EXPECT_DOUBLE_EQ(v, want) << d.name << " " << path;
      covered.insert(path);
    }
  }
  for (const RunField& f : run_fields()) {
    const std::string path = std::string(f.group) + "." + std::string(f.key);
    if (f.key != "rate_gbps" && f.key != "nodes") {
      EXPECT_TRUE(covered.count(path)) << path;
    }
  }
  EXPECT_THROW(run_field("totals.no_such_key"), std::logic_error);
}

// A background family names one key of background[]; its series, one per
// entry (labelled by its number from 1 and its pattern), hold the figures
// /api/state gives there.
TEST(MetricTable, BackgroundSeriesMatchApiStateOnePerEntry) {
  const std::deque<MonitorSnapshot> h{snapshot(1), snapshot(2)};
  const YAML::Node state = YAML::Load(state_json(h, "nodes: 3\n"));
  ASSERT_EQ(state["background"].size(), 2u);
  size_t families = 0;
  for (const MetricDescriptor& d : metric_table()) {
    if (d.labels.empty() || d.labels[0].name != "entry") continue;
    ++families;
    ASSERT_FALSE(d.state.empty()) << d.name;
    const std::string key = d.state[0].substr(std::string("background[].").size());
    const std::vector<MetricSample> samples = d.read({h.back(), &h.front()});
    ASSERT_EQ(samples.size(), h.back().background.size()) << d.name;
    for (const MetricSample& s : samples) {
      const size_t e = std::stoul(s.labels[0].second);
      const YAML::Node entry = state["background"][e - 1];
      EXPECT_EQ(entry["entry"].as<size_t>(), e) << d.name;
      EXPECT_EQ(s.labels[1].second, entry["pattern"].as<std::string>()) << d.name;
      const double want = std::visit([](auto v) { return static_cast<double>(v); }, s.value);
      const YAML::Node got = entry[key];
      ASSERT_TRUE(got.IsDefined()) << d.name << " " << key;
      const double v = got.as<std::string>() == "true"    ? 1.0
                       : got.as<std::string>() == "false" ? 0.0
                                                          : got.as<double>();
      EXPECT_DOUBLE_EQ(v, want) << d.name << " background[" << e - 1 << "]." << key;
    }
  }
  EXPECT_GE(families, 5u);
  // The history gives each entry's rate, in Gb/s, beside the BUs'.
  ASSERT_EQ(state["history"].size(), 1u);
  EXPECT_DOUBLE_EQ(state["history"][0]["background_gbps"][0].as<double>(), 12.0);
  EXPECT_DOUBLE_EQ(state["background"][0]["gbps"].as<double>(), 12.0);
}

// A run without background: no background series, nothing of it in /api/state.
TEST(MetricTable, ARunWithoutBackgroundShowsNoneOfIt) {
  std::deque<MonitorSnapshot> h{snapshot(1), snapshot(2)};
  for (MonitorSnapshot& s : h) s.background.clear();
  const std::string text = state_json(h, "nodes: 3\n");
  EXPECT_EQ(text.find("background"), std::string::npos) << text;
  for (const MetricDescriptor& d : metric_table()) {
    if (!d.labels.empty() && d.labels[0].name == "entry") {
      EXPECT_TRUE(d.read({h.back(), &h.front()}).empty()) << d.name;
    }
  }
}

// The run's labels on every /metrics series are /api/state's run.* texts.
TEST(MetricTable, RunLabelsAreApiStateKeys) {
  const std::deque<MonitorSnapshot> h{snapshot(1), snapshot(2)};
  const YAML::Node state = YAML::Load(state_json(h, "nodes: 3\n"));
  size_t n = 0;
  for (const RunLabel& l : run_labels()) {
    EXPECT_EQ(state["run"][std::string(l.key)].as<std::string>(), h.back().*l.value) << l.key;
    ++n;
  }
  EXPECT_EQ(n, 3u);
}

}  // namespace
}  // namespace evb
