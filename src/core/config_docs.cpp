// `evbench config --explain` text, the Markdown reference (docs/CONFIG.md) and
// the JSON description read by tools (scan/), all generated from the key table
// and the drivers' option tables.
#include <algorithm>
#include <cmath>

#include "core/config_detail.hpp"
#include "core/config_loader.hpp"
#include "core/json_writer.hpp"

namespace evb {
namespace config_detail {
namespace {

constexpr size_t kRangeWidth = 34;

struct Row {
  std::string key, type, def, unit, range, doc;
};

Row row_of(const KeySpec& spec, const std::string& prefix) {
  std::string type = type_name(spec.type);
  return Row{prefix + spec.path, type, spec.default_value, spec.unit, range_text(spec), spec.doc};
}

std::vector<Row> core_rows(const PluginKeys& plugins) {
  std::vector<Row> rows;
  for (const auto& k : core_key_table()) rows.push_back(row_of(with_plugins(k.spec, plugins), ""));
  return rows;
}

std::vector<Row> driver_rows(const std::vector<KeySpec>& specs) {
  std::vector<Row> rows;
  for (const auto& s : specs) rows.push_back(row_of(s, "driver_options."));
  return rows;
}

// Breaks `text` at spaces into lines of at most `width` characters.
std::vector<std::string> wrap(const std::string& text, size_t width) {
  std::vector<std::string> lines{""};
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(pos, end - pos);
    if (text.compare(end, 3, " | ") == 0) {  // keep "a |" together: lines end with the bar
      word += " |";
      end += 2;
    }
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > width)
      lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
    pos = end + 1;
  }
  return lines;
}

std::string pad(const std::string& s, size_t width) {
  return s + std::string(width > s.size() ? width - s.size() : 0, ' ');
}

void aligned_table(std::string& out, const std::vector<Row>& rows) {
  Row head{"KEY", "TYPE", "DEFAULT", "UNIT", "RANGE / CHOICES", "DESCRIPTION"};
  size_t w[5] = {head.key.size(), head.type.size(), head.def.size(), head.unit.size(),
                 head.range.size()};
  for (const auto& r : rows) {
    w[0] = std::max(w[0], r.key.size());
    w[1] = std::max(w[1], r.type.size());
    w[2] = std::max(w[2], r.def.size());
    w[3] = std::max(w[3], r.unit.size());
    for (const auto& line : wrap(r.range, kRangeWidth)) w[4] = std::max(w[4], line.size());
  }
  auto emit = [&](const Row& r) {
    const auto range = wrap(r.range, kRangeWidth);
    for (size_t i = 0; i < range.size(); ++i) {
      std::string line;
      if (i == 0)
        line = pad(r.key, w[0]) + "  " + pad(r.type, w[1]) + "  " + pad(r.def, w[2]) + "  " +
               pad(r.unit, w[3]) + "  " + pad(range[i], w[4]) + "  " + r.doc;
      else
        line = std::string(w[0] + w[1] + w[2] + w[3] + 8, ' ') + "  " + range[i];
      line.erase(line.find_last_not_of(' ') + 1);
      out += line + "\n";
    }
  };
  emit(head);
  for (const auto& r : rows) emit(r);
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string md_code(const std::string& s) {
  return s.empty() ? "" : "`" + md_cell(s) + "`";
}

void markdown_table(std::string& out, const std::vector<Row>& rows) {
  out += "| Key | Type | Default | Unit | Range / choices | Description |\n";
  out += "|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    out += "| " + md_code(r.key) + " | " + r.type + " | " + md_code(r.def) + " | " +
           md_cell(r.unit) + " | " + md_cell(r.range) + " | " + md_cell(r.doc) + " |\n";
}

static_assert(config_detail::kBareSecondsLimit == 1000, "the duration line below says 1000");
const char* const kSyntax[] = {
    "size: bytes, or a number with a unit: B, KiB, MiB, GiB, TiB (powers of 1024) or KB, MB, "
    "GB, TB (powers of 1000); 1.5MiB is fine, K/M/G alone are rejected as ambiguous",
    "duration: seconds, or a number with a unit: ns, us, ms, s, min, h; a bare number of 1000 "
    "or more is refused (duration: 2000 would be 33 min: write 2000ms or 2000s)",
    "nested keys can be written as YAML maps (fragment: {size: 1MiB}) or dotted (fragment.size: "
    "1MiB); --set KEY=VALUE overrides take the dotted form, the value is YAML "
    "(--set ru_rate_factors=[1,1,2,1])",
};

std::string json_number(double v) {
  return std::isfinite(v) ? format_real(v) : "null";
}

void json_key(JsonWriter& w, const KeySpec& spec, const std::string& prefix) {
  w.begin_object();
  w.value("key", prefix + spec.path);
  w.value("type", type_name(spec.type));
  w.raw("default", json_value(spec, parse_default(spec)));
  w.value("unit", spec.unit);
  w.raw("min", json_number(spec.min));
  w.raw("max", json_number(spec.max));
  w.begin_array("choices");
  for (const auto& c : spec.choices) w.value("", c);
  w.end_array();
  w.value("doc", spec.doc);
  w.end_object();
}

}  // namespace
}  // namespace config_detail

std::string explain_text(const PluginKeys& plugins) {
  using namespace config_detail;
  std::string out = "# evbench configuration keys (YAML paths; override with --set KEY=VALUE)\n";
  aligned_table(out, core_rows(plugins));
  for (const auto& driver : plugins.drivers) {
    out += "\n# driver_options for driver " + driver + "\n";
    auto it = plugins.driver_options.find(driver);
    if (it == plugins.driver_options.end() || it->second.empty())
      out += "(no options)\n";
    else
      aligned_table(out, driver_rows(it->second));
  }
  out += "\n";
  for (const char* line : kSyntax) out += std::string("# ") + line + "\n";
  return out;
}

std::string reference_markdown(const PluginKeys& plugins) {
  using namespace config_detail;
  std::string out = "# Configuration reference\n\n";
  out +=
      "This page is generated by `evbench config --markdown` from the same key table that "
      "validates configurations; do not edit it by hand. `evbench config --explain` prints the "
      "same information as text, `evbench config --json` as JSON for tools (evbench-scan reads "
      "its key list and units from it).\n\n";
  out += "## Value syntax\n\n";
  for (const char* line : kSyntax) out += std::string("- ") + line + "\n";
  out += "\n## Core keys\n\n";
  markdown_table(out, core_rows(plugins));
  if (!plugins.protocol_keys.empty()) {
    out +=
        "\n## Keys each protocol reads\n\nBeyond the keys every run reads. A key set "
        "explicitly that the selected protocol does not read draws a warning (not an error, so "
        "one file can serve several protocols; under a launcher only the first rank prints it). "
        "Each protocol declares its list in its factory "
        "(src/protocols/*/*_register.cpp).\n\n| Protocol | What it is | Keys |\n|---|---|---|\n";
    for (const auto& [protocol, keys] : plugins.protocol_keys) {
      std::string list;
      for (const auto& k : keys) list += (list.empty() ? "`" : ", `") + k + "`";
      const auto summary = plugins.protocol_summaries.find(protocol);
      out += "| `" + protocol + "` | " +
             (summary == plugins.protocol_summaries.end() ? "" : summary->second) + " | " + list +
             " |\n";
    }
  }
  // Each protocol's own rules (its factory's), checked first when it is the
  // selected one; a rule several protocols share is listed once with all of
  // them.
  std::vector<std::pair<std::string, std::string>> own;  // doc, protocols
  for (const auto& protocol : plugins.protocols) {
    auto rules = plugins.protocol_rules.find(protocol);
    if (rules == plugins.protocol_rules.end()) continue;
    for (const KeyRule& rule : rules->second) {
      auto it =
          std::find_if(own.begin(), own.end(), [&](const auto& o) { return o.first == rule.doc; });
      if (it == own.end())
        own.emplace_back(rule.doc, "`" + protocol + "`");
      else
        it->second += ", `" + protocol + "`";
    }
  }
  out +=
      "\n## Consistency checks\n\nChecked after the file and all overrides are read: first the "
      "selected protocol's own rules (declared by its factory, "
      "src/protocols/*/*_register.cpp), then those of every run.\n\n";
  for (const auto& [doc, protocols] : own) out += "- " + protocols + ": " + doc + "\n";
  if (!own.empty()) out += "\n";
  for (const auto& rule : consistency_rules()) out += "- " + rule + "\n";
  for (const auto& driver : plugins.drivers) {
    out += "\n## Driver options: " + driver + "\n\n";
    auto it = plugins.driver_options.find(driver);
    if (it == plugins.driver_options.end() || it->second.empty())
      out += "This driver has no options.\n";
    else
      markdown_table(out, driver_rows(it->second));
  }
  return out;
}

std::string reference_json(const PluginKeys& plugins) {
  using namespace config_detail;
  JsonWriter w;
  w.begin_object();
  w.value("schema_version", int64_t{1});
  w.value("generated_by", "evbench config --json");
  w.begin_array("keys");
  for (const auto& k : core_key_table()) json_key(w, with_plugins(k.spec, plugins), "");
  w.end_array();
  w.begin_object("driver_options");
  for (const auto& driver : plugins.drivers) {
    w.begin_array(driver);
    auto it = plugins.driver_options.find(driver);
    if (it != plugins.driver_options.end())
      for (const auto& s : it->second) json_key(w, s, "driver_options.");
    w.end_array();
  }
  w.end_object();
  w.begin_object("units");
  w.begin_object("size");
  for (const auto& [name, bytes] : size_units()) w.value(name, bytes);
  w.end_object();
  w.begin_object("duration");
  for (const auto& [name, seconds] : duration_units()) w.raw(name, format_real(seconds));
  w.end_object();
  w.end_object();
  w.end_object();
  return w.str() + "\n";
}

}  // namespace evb
