// The links between switches calibrated apart (apps/evbench/sim_link_kinds.hpp,
// sim_calibration.hpp): only rates that fall in proportion with the switch
// links fit them; their efficiency reads back from the overlay, shows in
// results.calibration only when fitted, scales the links between switches
// and no other; and a shift scan is read for its rates only where links,
// not a protocol, are fitted.
#include "apps/evbench/sim_link_kinds.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/evbench/sim_calibration.hpp"
#include "apps/evbench/sim_measured.hpp"
#include "apps/evbench/sim_overlay_keys.hpp"
#include "core/error.hpp"
#include "support/source_dir.hpp"
#include "topo/platform_loader.hpp"

namespace evb {
namespace {

// Three rates as a fluid model gives them at switch-link efficiency s: one
// its host's own link limits, one the uplink limits, one half each (a shift
// where two of a leaf's hosts stay on it).
std::vector<double> three_rates(double s) {
  const double host = 0.093;
  const double uplink = 0.031 * s;
  return {host, uplink, (host + uplink) / 2};
}

TEST(SimLinkKinds, OnlyARateThatFallsInProportionIsTheSwitchLinks) {
  const std::vector<size_t> used = switch_limited(three_rates(1), three_rates(kSwitchProbe));
  EXPECT_EQ(used, std::vector<size_t>{1});
  // A looser share takes the half-and-half rate too.
  EXPECT_EQ(switch_limited(three_rates(1), three_rates(kSwitchProbe), 0.2),
            (std::vector<size_t>{1, 2}));
  // A rate of 0 (nothing moved in the window) is nobody's.
  EXPECT_TRUE(switch_limited({0}, {0}).empty());
}

TEST(SimLinkKinds, FitsTheSwitchLinksToTheirRatesOnly) {
  // Measured: the uplink-limited rate at 85 % of the simulated; the others
  // far off, which must not pull the fit.
  const std::vector<double> measured = {0.05, 0.031 * 0.85, 0.2};
  int calls = 0;
  const SwitchLinkFit fit = fit_switch_link_efficiency(measured, [&](double s) {
    ++calls;
    return three_rates(s);
  });
  EXPECT_EQ(fit.used, std::vector<size_t>{1});
  EXPECT_NEAR(fit.efficiency, 0.85, 1e-9);
  EXPECT_DOUBLE_EQ(fit.measured, measured[1]);
  EXPECT_DOUBLE_EQ(fit.first, 0.031);
  EXPECT_NEAR(fit.last, measured[1], 1e-12);
  // At 1, at the probe, at the fitted value: no more.
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(fit.simulations, calls);
}

TEST(SimLinkKinds, NothingFittedWhenNoRateIsTheSwitchLinks) {
  const SwitchLinkFit fit =
      fit_switch_link_efficiency({0.05}, [](double) { return std::vector<double>{0.093}; });
  EXPECT_TRUE(fit.used.empty());
  EXPECT_DOUBLE_EQ(fit.efficiency, 1);
}

Calibration with_switch_links() {
  Calibration c;
  c.link_efficiency = 0.744;
  c.switch_link_efficiency = 0.852;
  c.platform = "p.yaml";
  c.from_file = "m4.json";
  c.switch_from.file = "scan.json";
  c.switch_from.config = "one-to-one, 16 nodes, barrel, fragment 524288 B, driver tcp";
  c.switch_from.rates = "shifts 4-12";
  c.switch_from.measured_gbps = 0.0268;
  c.switch_from.uncalibrated_gbps = 0.0315;
  c.switch_from.calibrated_gbps = 0.0273;
  c.switch_from.iterations = 3;
  return c;
}

TEST(SimLinkKinds, OverlayReadsBackTheSwitchLinksAndTheirOrigin) {
  const Calibration c = with_switch_links();
  const Calibration back = parse_calibration(c.overlay_yaml(), "cal.yaml");
  EXPECT_DOUBLE_EQ(back.link_efficiency, 0.744);
  EXPECT_DOUBLE_EQ(back.switch_link_efficiency, 0.852);
  EXPECT_DOUBLE_EQ(back.switch_efficiency(), 0.852);
  EXPECT_EQ(back.switch_from.file, "scan.json");
  EXPECT_EQ(back.switch_from.config, c.switch_from.config);
  EXPECT_EQ(back.switch_from.rates, "shifts 4-12");
  EXPECT_DOUBLE_EQ(back.switch_from.measured_gbps, 0.0268);
  EXPECT_DOUBLE_EQ(back.switch_from.uncalibrated_gbps, 0.0315);
  EXPECT_DOUBLE_EQ(back.switch_from.calibrated_gbps, 0.0273);
  EXPECT_EQ(back.switch_from.iterations, 3);
  // Not fitted: not written, and the switch links take link_efficiency.
  Calibration one = c;
  one.switch_link_efficiency = 0;
  EXPECT_EQ(one.overlay_yaml().find("switch"), std::string::npos);
  const Calibration one_back = parse_calibration(one.overlay_yaml(), "cal.yaml");
  EXPECT_DOUBLE_EQ(one_back.switch_link_efficiency, 0);
  EXPECT_DOUBLE_EQ(one_back.switch_efficiency(), 0.744);
}

TEST(SimLinkKinds, ResultsSayWhichWereFitted) {
  auto json_of = [](const Calibration& c) {
    JsonWriter w;
    w.begin_object();
    c.write_json(w);
    w.end_object();
    return w.str();
  };
  const std::string both = json_of(with_switch_links());
  EXPECT_NE(both.find("\"switch_link_efficiency\""), std::string::npos) << both;
  EXPECT_NE(both.find("\"switch_from\""), std::string::npos) << both;
  EXPECT_NE(both.find("shifts 4-12"), std::string::npos) << both;
  Calibration one = with_switch_links();
  one.switch_link_efficiency = 0;
  EXPECT_EQ(json_of(one).find("switch"), std::string::npos) << json_of(one);
  EXPECT_NE(with_switch_links().text_line().find("switch links 0.852"), std::string::npos);
  EXPECT_EQ(one.text_line().find("switch links"), std::string::npos);
}

TEST(SimLinkKinds, BadSwitchLinkEfficiencyNamesTheKey) {
  auto error = [](const std::string& text) {
    try {
      parse_calibration(text, "cal.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error("calibration: {link_efficiency: 0.7, switch_link_efficiency: 3}\n")
                .find("cal.yaml: calibration.switch_link_efficiency: 3 is outside"),
            std::string::npos);
  EXPECT_NE(error("calibration: {link_efficiency: 0.7, switch_link_efficiency: slow}\n")
                .find("cal.yaml: calibration.switch_link_efficiency: 'slow' is not a number"),
            std::string::npos);
  // Keys outside the table, at either level.
  EXPECT_NE(error("calibration: {link_efficiency: 0.7, switch_efficiency: 0.8}\n")
                .find("cal.yaml: calibration.switch_efficiency: unknown key"),
            std::string::npos);
  EXPECT_NE(error("calibration: {link_efficiency: 0.7, switch_from: {fil: a.json}}\n")
                .find("cal.yaml: calibration.switch_from.fil: unknown key"),
            std::string::npos);
}

TEST(SimLinkKinds, EveryKeyWrittenIsInTheTable) {
  const YAML::Node root = YAML::Load(with_switch_links().overlay_yaml());
  std::vector<std::string> paths;
  const std::function<void(const YAML::Node&, const std::string&)> walk =
      [&](const YAML::Node& n, const std::string& at) {
        for (const auto& kv : n) {
          const std::string path = (at.empty() ? "" : at + ".") + kv.first.Scalar();
          paths.push_back(path);
          if (kv.second.IsMap()) walk(kv.second, path);
        }
      };
  walk(root, "");
  for (const auto& p : paths) EXPECT_TRUE(is_overlay_key(p)) << p;
  // And every key of the table is written when both kinds are fitted (but
  // an older overlay's, which is only read).
  for (const auto& k : overlay_keys()) {
    if (k.doc.rfind("an older overlay's", 0) == 0) continue;
    EXPECT_NE(std::find(paths.begin(), paths.end(), k.path), paths.end()) << k.path;
  }
}

TEST(SimLinkKinds, ScaleMdOverlayTableIsTheKeyTable) {
  std::ifstream in(std::string(EVBENCH_SOURCE_DIR) + "/docs/SCALE.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string page = text.str();
  const std::string begin = "<!-- overlay-keys:begin (generated: overlay_reference_markdown) -->\n";
  const std::string end = "<!-- overlay-keys:end -->";
  const size_t b = page.find(begin);
  const size_t e = page.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(page.substr(b + begin.size(), e - b - begin.size()), overlay_reference_markdown())
      << "docs/SCALE.md's overlay key table is stale: replace it with overlay_reference_markdown()"
         " (src/apps/evbench/sim_overlay_keys.cpp)";
}

TEST(SimLinkKinds, SwitchLinkEfficiencyScalesOnlyLinksBetweenSwitches) {
  topo::Platform p = topo::load_platform_text(
      "name: t\nswitches: [s0, s1]\nhosts:\n  - {name: a, switch: s0, port: 1}\n"
      "  - {name: b, switch: s1, port: 1}\n"
      "cables:\n  - {a: s0, a_port: 2, b: s1, b_port: 2}\nrouting: shortest\n"
      "links:\n  host: {bandwidth: 100Gbit/s, latency: 100ns}\n"
      "  switch: {bandwidth: 100Gbit/s, latency: 100ns}\n",
      "t.yaml");
  std::vector<double> before;
  for (const auto& l : p.links) before.push_back(l.bandwidth);
  Calibration c;
  c.link_efficiency = 0.5;
  c.switch_link_efficiency = 0.8;
  apply_calibration(c, p);
  int between_switches = 0, host_links = 0;
  for (size_t i = 0; i < p.links.size(); ++i) {
    const auto& l = p.links[i];
    const bool sw = p.nodes[static_cast<size_t>(l.from)].kind == topo::NodeKind::switch_node &&
                    p.nodes[static_cast<size_t>(l.to)].kind == topo::NodeKind::switch_node;
    EXPECT_DOUBLE_EQ(l.bandwidth, before[i] * (sw ? 0.8 : 0.5)) << i;
    ++(sw ? between_switches : host_links);
  }
  EXPECT_EQ(between_switches, 2);  // the cable, both ways
  EXPECT_EQ(host_links, 4);
}

// A one-to-one shift scan's results document, reduced to what is read.
std::string scan_document() {
  return R"({"tool": "evbench",
  "config": {"nodes": 16, "protocol": "one-to-one", "scheduling": "barrel",
             "fragment": {"size": 524288}, "driver": "tcp", "shift": "scan"},
  "results": {"builds_events": false, "events_built": 3500, "events_per_second": 1000,
    "bandwidth_gbps": {"per_node": {"avg": 0.05}},
    "shifts": [{"shift": 0, "local_copy": true, "per_node": {"avg": 9.5}},
               {"shift": 1, "local_copy": false, "per_node": {"avg": 0.118}},
               {"shift": 4, "local_copy": false, "per_node": {"avg": 0.027}}]}})";
}

TEST(SimLinkKinds, AScanIsReadForItsRatesWhereLinksAreFitted) {
  const MeasuredRun m = parse_measured_run(scan_document(), "scan.json", true);
  ASSERT_EQ(m.shifts.size(), 2u);  // the local copy left out
  EXPECT_EQ(m.shifts[0].shift, 1);
  EXPECT_DOUBLE_EQ(m.shifts[0].per_node_gbps, 0.118);
  EXPECT_EQ(m.shifts[1].shift, 4);
  EXPECT_DOUBLE_EQ(m.shifts[1].per_node_gbps, 0.027);
  // As the run a protocol is fitted to (the first, or the only one): refused
  // as before.
  try {
    parse_measured_run(scan_document(), "scan.json");
    FAIL() << "a scan accepted as the host links' run";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("scan.json: results.builds_events: false"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace evb
