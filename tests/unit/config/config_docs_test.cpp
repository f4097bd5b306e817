// The key table and what is generated from it: --explain text, the Markdown
// reference, JSON, enum spellings.
#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "core/config_detail.hpp"
#include "core/config_loader.hpp"
#include "real_plugins.hpp"

namespace evb {
namespace {

const PluginKeys& plugins() {
  return test::real_plugins();
}

// The real table plus a driver that declares no options (none of the built
// ones does), for the "no options" lines.
PluginKeys with_bare_driver() {
  PluginKeys p = plugins();
  p.drivers.push_back("bare");
  p.driver_options["bare"] = {};
  return p;
}

#define EXPECT_HAS(haystack, needle)                                  \
  do {                                                                \
    const std::string h_ = (haystack);                                \
    EXPECT_NE(h_.find(needle), std::string::npos) << "text:\n" << h_; \
  } while (0)

TEST(ConfigTable, EveryKeyOnceWithDoc) {
  std::set<std::string> seen;
  for (const auto& k : core_keys()) {
    EXPECT_TRUE(seen.insert(k.path).second) << "duplicate " << k.path;
    EXPECT_FALSE(k.doc.empty()) << k.path;
  }
  for (const char* path : {"nodes",
                           "layout",
                           "evm",
                           "fu_per_bu",
                           "fu.processing_time",
                           "fu.accept_ratio",
                           "protocol",
                           "scheduling",
                           "seed",
                           "credits",
                           "parallel",
                           "shift",
                           "fragment.size",
                           "fragment.distribution",
                           "fragment.spread",
                           "fragment.max_size",
                           "fragment.data_segments",
                           "fragment.meta_size",
                           "fragment.meta_segments",
                           "ru_rate_factors",
                           "ru_buffer",
                           "command_size",
                           "duration",
                           "events",
                           "warmup",
                           "report_interval",
                           "peer_timeout",
                           "verify.sample",
                           "fault.corrupt_every",
                           "driver",
                           "driver_options",
                           "bootstrap",
                           "poll_mode"})
    EXPECT_TRUE(seen.count(path)) << "missing " << path;
}

TEST(ConfigTable, EnumSpellings) {
  EXPECT_STREQ(to_string(EvmPlacement::with_rank0), "with-rank0");
  EXPECT_STREQ(to_string(PollMode::automatic), "auto");
  EXPECT_STREQ(to_string(SizeDistribution::lognormal), "lognormal");
  EXPECT_STREQ(to_string(Layout::split), "split");
  EXPECT_STREQ(to_string(Scheduling::barrel), "barrel");
}

TEST(ConfigExplain, AlignedTableWithDriverOptions) {
  const std::string text = explain_text(with_bare_driver());
  EXPECT_HAS(text, "KEY");
  EXPECT_HAS(text, "RANGE / CHOICES");
  EXPECT_HAS(text, "credits");
  EXPECT_HAS(text, "1 .. 1024");
  EXPECT_HAS(text, "fragment.size");
  EXPECT_HAS(text, "512KiB");
  EXPECT_HAS(text, "pull | push");
  // Driver choices come from the plug-ins (the range column wraps long lists
  // onto continuation lines: every name appears in the `driver` row or its
  // continuations), every driver's option table follows.
  const size_t row = text.find("\ndriver ");
  const size_t next = text.find("\ndriver_options ");
  ASSERT_NE(row, std::string::npos);
  ASSERT_NE(next, std::string::npos);
  std::string driver_row;
  for (char c : text.substr(row, next - row))
    if (!(std::isspace(static_cast<unsigned char>(c)) && !driver_row.empty() &&
          driver_row.back() == ' '))
      driver_row += std::isspace(static_cast<unsigned char>(c)) ? ' ' : c;
  for (const std::string& d : with_bare_driver().drivers)
    EXPECT_HAS(driver_row + " ", " " + d + " ");
  for (const auto& [driver, specs] : plugins().driver_options) {
    EXPECT_HAS(text, "# driver_options for driver " + driver + "\n");
    for (const KeySpec& k : specs) EXPECT_HAS(text, "\ndriver_options." + k.path + " ");
  }
  EXPECT_HAS(text, "# driver_options for driver bare\n(no options)");
  EXPECT_HAS(text, "64 B .. 1 MiB");  // a size range (command_size)
  // Aligned: the type column starts at the same offset on every key line.
  size_t type_col = std::string::npos;
  for (const std::string key : {"nodes", "credits", "fragment.size", "poll_mode"}) {
    const size_t line = text.find("\n" + key + " ");
    ASSERT_NE(line, std::string::npos) << key;
    const size_t col = text.find_first_not_of(' ', line + 1 + key.size()) - line - 1;
    if (type_col == std::string::npos) type_col = col;
    EXPECT_EQ(col, type_col) << key;
  }
}

TEST(ConfigMarkdown, ReferenceDocument) {
  const std::string md = reference_markdown(plugins());
  EXPECT_EQ(md.rfind("# Configuration reference\n", 0), 0u);
  EXPECT_HAS(md, "generated by `evbench config --markdown`");
  EXPECT_HAS(md, "| Key | Type | Default | Unit | Range / choices | Description |");
  EXPECT_HAS(md, "| `credits` | integer | `2` | events | 1 .. 1024 |");
  EXPECT_HAS(md, "pull \\| push");
  EXPECT_HAS(md, "## Consistency checks");
  EXPECT_HAS(md, "`parallel` must not exceed `nodes`");
  for (const auto& [driver, specs] : plugins().driver_options) {
    EXPECT_HAS(md, "## Driver options: " + driver + "\n");
    for (const KeySpec& k : specs) EXPECT_HAS(md, "| `driver_options." + k.path + "` | ");
  }
  if (const KeySpec* k = test::driver_option("tcp", "sndbuf")) {
    EXPECT_HAS(md,
               "| `driver_options.sndbuf` | size | `" + k->default_value + "` | " + k->unit + " |");
  }
  EXPECT_HAS(reference_markdown(with_bare_driver()),
             "## Driver options: bare\n\nThis driver has no options.");
}

TEST(ConfigReferenceJson, EveryKeyWithDefaultRangeAndUnits) {
  const std::string json = reference_json(plugins());
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.substr(json.size() - 2), "}\n");
  EXPECT_HAS(json, "\"schema_version\": 1");
  // Every core key once, and every driver option once, under its full path.
  size_t rows = 0;
  for (size_t at = json.find("\"key\": \""); at != std::string::npos;
       at = json.find("\"key\": \"", at + 1))
    ++rows;
  size_t options = 0;
  for (const auto& [driver, specs] : plugins().driver_options) options += specs.size();
  EXPECT_EQ(rows, core_keys().size() + options);
  for (const auto& k : core_keys()) EXPECT_HAS(json, "\"key\": \"" + k.path + "\",");
  // Defaults in canonical units (bytes, seconds); infinite bounds as null.
  EXPECT_HAS(json,
             "\"key\": \"credits\",\n      \"type\": \"integer\",\n      \"default\": 2,\n"
             "      \"unit\": \"events\",\n      \"min\": 1,\n      \"max\": 1024,");
  EXPECT_HAS(json,
             "\"key\": \"fragment.size\",\n      \"type\": \"size\",\n      \"default\": 524288,");
  EXPECT_HAS(json, "\"key\": \"warmup\",\n      \"type\": \"duration\",\n      \"default\": 0.5,");
  EXPECT_HAS(json,
             "\"key\": \"seed\",\n      \"type\": \"integer\",\n      \"default\": 1,\n"
             "      \"unit\": \"\",\n      \"min\": 0,\n      \"max\": null,");
  // Choices: the enum spellings, and the drivers the plug-ins name.
  EXPECT_HAS(json, "\"choices\": [\n        \"pull\",\n        \"push\",");
  EXPECT_HAS(json,
             "\"key\": \"driver\",\n      \"type\": \"choice\",\n      \"default\": \"tcp\",");
  std::string drivers = "\"choices\": [";
  for (size_t i = 0; i < plugins().drivers.size(); ++i)
    drivers += std::string(i ? "," : "") + "\n        \"" + plugins().drivers[i] + "\"";
  EXPECT_HAS(json, drivers + "\n      ],");
  EXPECT_HAS(json, "\"choices\": [\n        \"scan\"\n      ],");  // shift's extra word
  // Driver options per driver, with their full path.
  for (const auto& [driver, specs] : plugins().driver_options) {
    EXPECT_HAS(json, "\"" + driver + "\": [");
    for (const KeySpec& k : specs)
      EXPECT_HAS(json, "\"key\": \"driver_options." + k.path + "\",\n        \"type\": \"" +
                           config_detail::type_name(k.type) + "\",");
  }
  // The unit words the parser accepts, with their factors.
  EXPECT_HAS(json, "\"size\": {\n      \"B\": 1,\n      \"KiB\": 1024,");
  EXPECT_HAS(json, "\"GB\": 1000000000,");
  EXPECT_HAS(json, "\"ms\": 0.001,");
  EXPECT_HAS(json, "\"min\": 60,");
}

TEST(ConfigJson, NestedObjectWithEveryKey) {
  EVB_REQUIRE_DRIVER("tcp");
  Config c = load_config_text("driver_options: {sndbuf: 8KiB}\n", "t", {}, plugins());
  c.bootstrap = "lo\"cal\\\n";
  const std::string json = to_json(c);
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '}');
  EXPECT_HAS(json, "{\"nodes\":4,\"layout\":\"rubu\",\"evm\":\"dedicated\"");
  EXPECT_HAS(json, "\"fu\":{\"processing_time\":0,\"accept_ratio\":1}");
  EXPECT_HAS(json, "\"fragment\":{\"size\":524288,\"distribution\":\"fixed\"");
  EXPECT_HAS(json, "\"ru_rate_factors\":[]");
  EXPECT_HAS(json, "\"duration\":3,");
  EXPECT_HAS(json, "\"verify\":{\"sample\":0.015625,\"payload\":\"auto\"}");
  EXPECT_HAS(json, "\"driver_options\":{\"");
  EXPECT_HAS(json, "\"sndbuf\":\"8192\"");  // with tcp's other options at their defaults
  EXPECT_HAS(json, "\"bootstrap\":\"lo\\\"cal\\\\\\n\"");
  EXPECT_HAS(json, "\"poll_mode\":\"auto\"}");
  c.shift_scan = true;
  c.ru_rate_factors = {1, 0.5};
  EXPECT_HAS(to_json(c), "\"shift\":\"scan\"");
  EXPECT_HAS(to_json(c), "\"ru_rate_factors\":[1,0.5]");
}

}  // namespace
}  // namespace evb
