// The Prometheus text exposition of hand-built snapshots: its grammar (every
// line a comment or `name{labels} value`, HELP and TYPE once per family,
// label values escaped), the counters and the rates over the last interval
// computed from the inputs, and promtool's verdict on it.
#include "protocols/monitor/exposition.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace evb {
namespace {

// A label value with every character the format escapes.
const std::string kVariant = "ucx/sm \"write\" a\\b\nc";

// Three nodes, report `k` of a run: counters grow with k, one BU failed and
// recovered, one RU is lost and not recovered, one control change.
MonitorSnapshot snapshot(int k) {
  MonitorSnapshot s;
  s.t_s = 1.5 * k + 0.25;
  s.interval_s = 1.5;
  s.protocol = "pull";
  s.variant = kVariant;
  s.data_path = "write";
  s.nodes = 3;
  s.eb.events_assigned = 1000 * k + 7;
  s.eb.events_built = 990 * k;
  s.eb.bytes_built = 123457ULL * k * k;
  for (int b = 0; b < 3; ++b) {
    MonitorBu u;
    u.bytes = 40000ULL * (b + 1) * k * k;
    u.fragments = 30ULL * (b + 1) * k;
    u.events_built = 330ULL * k;
    u.events_in_flight = b + 1;
    u.requests_in_flight = 2 * b;
    u.fu_queue = 3 * b + 1;
    u.latency_p50_s = 0.001 * (b + 1);
    u.latency_p90_s = 0.002 * (b + 1);
    u.latency_p99_s = 0.0035 * (b + 1);
    u.integrity_errors = b == 1 ? k : 0;
    u.excluded = b == 2;
    u.reported = true;
    u.rate_bytes_per_s = 25000.0 * (b + 1) * k;  // as the BU measured it, by its clock
    u.rate_carried = b == 1;
    s.eb.bus.push_back(u);
    MonitorRu r;
    r.bytes = 41000ULL * (b + 1) * k;
    r.fragments = 31ULL * (b + 1) * k;
    r.rate_factor = b == 1 ? 0.5 : 1.0;
    r.lost = b == 0;
    r.masked = b == 0;
    r.reported = true;
    r.rate_bytes_per_s = 26000.0 * (b + 1) * k;
    s.eb.rus.push_back(r);
  }
  for (int i = 0; i < 9; ++i) s.eb.matrix.push_back(100ULL * (i + 1) * k);
  s.eb.faults.push_back({"BU 2", "peer lost", "reassigned", 0.5, 0.75, 1.25, 12});
  s.eb.faults.push_back({"RU 0", "silent", "masked", 0.5, 1.0, -1, 0});
  s.eb.control.push_back({0.4, "parallel", "2", 17, "http"});
  s.eb.control.push_back({0.9, "ru_rate_factors", "[1, 0.5, 1]", 40, "config"});
  s.eb.params = {2, 3, 4, 0.002, {1, 0.5, 1}, false};
  return s;
}

// One sample line, parsed: `name{l="v",...} value`.
struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string value;
};

// Parses label pairs from text[pos] (just after '{') through the closing
// '}', undoing the format's escapes; nullopt on anything else.
std::optional<std::map<std::string, std::string>> parse_labels(const std::string& t, size_t& pos) {
  std::map<std::string, std::string> out;
  while (pos < t.size() && t[pos] != '}') {
    const size_t eq = t.find('=', pos);
    if (eq == std::string::npos || eq + 1 >= t.size() || t[eq + 1] != '"') return std::nullopt;
    const std::string name = t.substr(pos, eq - pos);
    if (name.empty() || name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
      return std::nullopt;
    std::string value;
    size_t i = eq + 2;
    for (; i < t.size() && t[i] != '"'; ++i) {
      if (t[i] == '\\') {
        if (++i >= t.size()) return std::nullopt;
        if (t[i] == 'n') {
          value += '\n';
        } else if (t[i] == '\\' || t[i] == '"') {
          value += t[i];
        } else {
          return std::nullopt;
        }
      } else {
        value += t[i];
      }
    }
    if (i >= t.size() || !out.emplace(name, value).second) return std::nullopt;
    pos = i + 1;
    if (pos < t.size() && t[pos] == ',') ++pos;
  }
  if (pos >= t.size()) return std::nullopt;
  ++pos;  // '}'
  return out;
}

std::optional<Sample> parse_sample(const std::string& line) {
  const size_t brace = line.find('{');
  if (brace == std::string::npos || brace == 0) return std::nullopt;
  Sample s;
  s.name = line.substr(0, brace);
  if (s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") != std::string::npos)
    return std::nullopt;
  size_t pos = brace + 1;
  auto labels = parse_labels(line, pos);
  if (!labels || pos >= line.size() || line[pos] != ' ') return std::nullopt;
  s.labels = std::move(*labels);
  s.value = line.substr(pos + 1);
  char* end = nullptr;
  std::strtod(s.value.c_str(), &end);
  if (s.value.empty() || *end != '\0') return std::nullopt;
  return s;
}

// The whole exposition: samples in order, and HELP/TYPE per family.
struct Parsed {
  std::vector<Sample> samples;
  std::map<std::string, int> helps, types;
  std::map<std::string, std::string> type_of;
  std::vector<std::string> bad;  // lines that are neither
};

Parsed parse(const std::string& text) {
  Parsed p;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string name, rest;
      words >> name >> rest;
      if (name.empty() || rest.empty()) p.bad.push_back(line);
      if (line[2] == 'H') {
        ++p.helps[name];
      } else {
        ++p.types[name];
        p.type_of[name] = rest;
      }
    } else if (auto s = parse_sample(line)) {
      p.samples.push_back(std::move(*s));
    } else {
      p.bad.push_back(line);
    }
  }
  return p;
}

// The value of the one sample of `name` whose labels include `want`.
std::optional<double> value(const Parsed& p, const std::string& name,
                            const std::map<std::string, std::string>& want = {}) {
  std::optional<double> found;
  for (const Sample& s : p.samples) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : want) match = match && s.labels.count(k) && s.labels.at(k) == v;
    if (!match) continue;
    EXPECT_FALSE(found.has_value()) << "two samples of " << name;
    found = std::strtod(s.value.c_str(), nullptr);
  }
  return found;
}

TEST(Exposition, EveryLineIsACommentOrASample) {
  const MonitorSnapshot a = snapshot(1), b = snapshot(2);
  const std::string text = prometheus_text(b, &a);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  const Parsed p = parse(text);
  EXPECT_TRUE(p.bad.empty()) << "first bad line: " << (p.bad.empty() ? "" : p.bad.front());
  EXPECT_GT(p.samples.size(), 50u);
}

TEST(Exposition, EveryFamilyHasHelpAndTypeOnceAndItsSamplesTogether) {
  const MonitorSnapshot a = snapshot(1), b = snapshot(2);
  const Parsed p = parse(prometheus_text(b, &a));
  std::set<std::string> done;
  std::string current;
  for (const Sample& s : p.samples) {
    EXPECT_EQ(p.helps.count(s.name) ? p.helps.at(s.name) : 0, 1) << s.name;
    EXPECT_EQ(p.types.count(s.name) ? p.types.at(s.name) : 0, 1) << s.name;
    EXPECT_EQ(s.name.rfind("evbench_", 0), 0u) << s.name;
    const std::string type = p.type_of.count(s.name) ? p.type_of.at(s.name) : "";
    const bool total = s.name.size() > 6 && s.name.compare(s.name.size() - 6, 6, "_total") == 0;
    EXPECT_EQ(type == "counter", total) << s.name << " is a " << type;
    if (s.name != current) {
      EXPECT_TRUE(done.insert(s.name).second) << s.name << " is split";
      current = s.name;
    }
  }
  // Every HELP/TYPE names a family that has samples.
  for (const auto& [name, n] : p.types) EXPECT_TRUE(done.count(name)) << name;
  for (const auto& [name, n] : p.helps) EXPECT_TRUE(done.count(name)) << name;
}

TEST(Exposition, EverySeriesCarriesTheRunLabelsEscaped) {
  const MonitorSnapshot a = snapshot(1), b = snapshot(2);
  const std::string text = prometheus_text(b, &a);
  EXPECT_NE(text.find("variant=\"ucx/sm \\\"write\\\" a\\\\b\\nc\""), std::string::npos);
  const Parsed p = parse(text);
  ASSERT_FALSE(p.samples.empty());
  for (const Sample& s : p.samples) {
    EXPECT_EQ(s.labels.count("protocol") ? s.labels.at("protocol") : "?", "pull") << s.name;
    EXPECT_EQ(s.labels.count("variant") ? s.labels.at("variant") : "?", kVariant) << s.name;
    EXPECT_EQ(s.labels.count("data_path") ? s.labels.at("data_path") : "?", "write") << s.name;
  }
  EXPECT_EQ(value(p, "evbench_info", {{"nodes", "3"}}), 1.0);
}

TEST(Exposition, CountersDoNotGoBackBetweenReports) {
  const MonitorSnapshot s1 = snapshot(1), s2 = snapshot(2), s3 = snapshot(3);
  const Parsed before = parse(prometheus_text(s2, &s1));
  const Parsed after = parse(prometheus_text(s3, &s2));
  int counters = 0, grew = 0;
  for (const Sample& s : after.samples) {
    if (after.type_of.at(s.name) != "counter") continue;
    ++counters;
    const auto old = value(before, s.name, s.labels);
    ASSERT_TRUE(old.has_value()) << s.name;
    const double now = std::strtod(s.value.c_str(), nullptr);
    EXPECT_GE(now, *old) << s.name;
    grew += now > *old;
  }
  EXPECT_GT(counters, 20);
  EXPECT_GT(grew, 20);
  EXPECT_EQ(value(after, "evbench_events_built_total"), static_cast<double>(s3.eb.events_built));
  EXPECT_EQ(value(after, "evbench_traffic_bytes_total", {{"ru", "2"}, {"bu", "1"}}),
            static_cast<double>(s3.eb.matrix[2 * 3 + 1]));
  EXPECT_EQ(value(after, "evbench_events_in_flight"),
            static_cast<double>(s3.eb.events_assigned - s3.eb.events_built));
}

// The EVM's rates are over the last interval between snapshots; each unit's
// is the one it measured by its own clock (the snapshot's), marked when
// carried forward.
TEST(Exposition, RatesAreOverTheLastIntervalOrTheUnitsOwn) {
  const MonitorSnapshot a = snapshot(2), b = snapshot(3);
  const Parsed p = parse(prometheus_text(b, &a));
  const double dt = b.t_s - a.t_s;
  EXPECT_DOUBLE_EQ(*value(p, "evbench_aggregate_rate_bytes_per_second"),
                   static_cast<double>(b.eb.bytes_built - a.eb.bytes_built) / dt);
  EXPECT_DOUBLE_EQ(*value(p, "evbench_events_per_second"),
                   static_cast<double>(b.eb.events_built - a.eb.events_built) / dt);
  for (size_t i = 0; i < b.eb.bus.size(); ++i) {
    const auto rate = value(p, "evbench_bu_rate_bytes_per_second", {{"bu", std::to_string(i)}});
    ASSERT_TRUE(rate.has_value()) << i;
    EXPECT_DOUBLE_EQ(*rate, b.eb.bus[i].rate_bytes_per_s);
    const std::map<std::string, std::string> unit{{"bu", std::to_string(i)}};
    EXPECT_EQ(value(p, "evbench_bu_rate_carried", unit), b.eb.bus[i].rate_carried ? 1.0 : 0.0);
    const std::map<std::string, std::string> ru{{"ru", std::to_string(i)}};
    EXPECT_EQ(value(p, "evbench_ru_rate_bytes_per_second", ru), b.eb.rus[i].rate_bytes_per_s);
  }
  // The first report has no interval behind it: no aggregate rate; a
  // unit's rate does not need one.
  const Parsed first = parse(prometheus_text(a, nullptr));
  EXPECT_EQ(value(first, "evbench_aggregate_rate_bytes_per_second"), 0.0);
  EXPECT_EQ(value(first, "evbench_bu_rate_bytes_per_second", {{"bu", "1"}}),
            a.eb.bus[1].rate_bytes_per_s);
}

TEST(Exposition, LatencyQuantilesPerBu) {
  const MonitorSnapshot a = snapshot(1), b = snapshot(2);
  const Parsed p = parse(prometheus_text(b, &a));
  const std::string name = "evbench_bu_event_latency_seconds";
  for (size_t i = 0; i < b.eb.bus.size(); ++i) {
    const std::string bu = std::to_string(i);
    EXPECT_EQ(value(p, name, {{"bu", bu}, {"quantile", "0.5"}}), b.eb.bus[i].latency_p50_s);
    EXPECT_EQ(value(p, name, {{"bu", bu}, {"quantile", "0.9"}}), b.eb.bus[i].latency_p90_s);
    EXPECT_EQ(value(p, name, {{"bu", bu}, {"quantile", "0.99"}}), b.eb.bus[i].latency_p99_s);
  }
  int series = 0;
  for (const Sample& s : p.samples) series += s.name == name;
  EXPECT_EQ(series, 3 * 3);
}

TEST(Exposition, FaultsAndControlChanges) {
  const MonitorSnapshot a = snapshot(1), b = snapshot(2);
  const Parsed p = parse(prometheus_text(b, &a));
  EXPECT_EQ(value(p, "evbench_faults_total", {{"action", "reassigned"}}), 1.0);
  EXPECT_EQ(value(p, "evbench_faults_total", {{"action", "masked"}}), 1.0);
  EXPECT_EQ(value(p, "evbench_fault_recovered", {{"unit", "BU 2"}}), 1.0);
  EXPECT_EQ(value(p, "evbench_fault_recovered", {{"unit", "RU 0"}}), 0.0);
  const MonitorFault& f = b.eb.faults[0];
  EXPECT_DOUBLE_EQ(*value(p, "evbench_fault_recovery_seconds", {{"unit", "BU 2"}}),
                   f.recovered_at_s - f.lost_at_s);
  EXPECT_FALSE(value(p, "evbench_fault_recovery_seconds", {{"unit", "RU 0"}}).has_value());
  EXPECT_EQ(value(p, "evbench_control_changes_total"), static_cast<double>(b.eb.control.size()));
  EXPECT_EQ(value(p, "evbench_control_last_change_seconds"), b.eb.control.back().t_s);
  EXPECT_EQ(value(p, "evbench_bu_excluded", {{"bu", "2"}}), 1.0);
  EXPECT_EQ(value(p, "evbench_bu_fu_queue_depth", {{"bu", "2"}}),
            static_cast<double>(b.eb.bus[2].fu_queue));
  EXPECT_EQ(value(p, "evbench_bu_requests_in_flight", {{"bu", "1"}}),
            static_cast<double>(b.eb.bus[1].requests_in_flight));
  EXPECT_EQ(value(p, "evbench_ru_lost", {{"ru", "0"}}), 1.0);
  EXPECT_EQ(value(p, "evbench_ru_rate_factor", {{"ru", "1"}}), 0.5);
  EXPECT_EQ(value(p, "evbench_credits"), static_cast<double>(b.eb.params.credits));
  EXPECT_EQ(value(p, "evbench_fu_processing_time_seconds"), b.eb.params.processing_time_s);

  MonitorSnapshot quiet = b;
  quiet.eb.control.clear();
  const Parsed q = parse(prometheus_text(quiet, &a));
  EXPECT_EQ(value(q, "evbench_control_changes_total"), 0.0);
  EXPECT_FALSE(value(q, "evbench_control_last_change_seconds").has_value());
  EXPECT_EQ(q.types.count("evbench_control_last_change_seconds"), 0u);
}

TEST(Exposition, BeforeTheFirstReportOnlyInfoAndUptime) {
  const Parsed p = parse(prometheus_text(MonitorSnapshot{}, nullptr));
  EXPECT_TRUE(p.bad.empty());
  std::set<std::string> names;
  for (const Sample& s : p.samples) names.insert(s.name);
  EXPECT_EQ(names, (std::set<std::string>{"evbench_info", "evbench_uptime_seconds"}));
  EXPECT_EQ(value(p, "evbench_info", {{"nodes", "0"}}), 1.0);
}

// promtool's verdict (`check metrics`: the parser and its lint): exit code 0
// and nothing printed, for a full report, a first one and an empty one.
std::pair<int, std::string> promtool(const std::string& text) {
  char path[] = "/tmp/evbench_exposition_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return {-1, "mkstemp failed"};
  close(fd);
  std::ofstream(path) << text;
  const std::string cmd = std::string("promtool check metrics < ") + path + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  if (pipe) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, pipe)) out += buf;
  }
  const int status = pipe ? pclose(pipe) : -1;
  std::remove(path);
  return {status, out};
}

TEST(Exposition, PromtoolFindsNoProblems) {
  if (access("/usr/bin/promtool", X_OK) != 0 && std::system("command -v promtool >/dev/null") != 0)
    GTEST_SKIP() << "promtool not installed (scripts/install-deps.sh --test installs prometheus)";
  const MonitorSnapshot a = snapshot(1), b = snapshot(2);
  for (const std::string& text : {prometheus_text(b, &a), prometheus_text(a, nullptr),
                                  prometheus_text(MonitorSnapshot{}, nullptr)}) {
    const auto [status, out] = promtool(text);
    EXPECT_EQ(status, 0) << out;
    EXPECT_EQ(out, "") << text;
  }
  // The check can fail: a gauge with a quantile label is a lint problem.
  const auto [status, out] = promtool(
      "# HELP evbench_x_seconds x\n# TYPE evbench_x_seconds gauge\n"
      "evbench_x_seconds{quantile=\"0.5\"} 1\n");
  EXPECT_NE(status, 0);
  EXPECT_NE(out, "");
}

}  // namespace
}  // namespace evb
