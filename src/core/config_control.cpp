// The `control:` list: timed run-time changes ({at: 5s, parallel: 2},
// {at: 8s, credits: 1, fu.processing_time: 2ms}, {at: 12s, pause: true}),
// each kept as `at` plus the rest of its map as a flow-YAML body, the same
// text a POST /control of the monitor takes. Here only the shape is checked
// (a list of maps, `at` a duration, values scalars or lists of scalars); the
// keys and their limits are the monitor's parser's (monitor/control.hpp),
// run by the event builders' rules, which know the protocol and the limits.
#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/config_detail.hpp"

namespace evb::config_detail {
namespace {

// A scalar as it reads in JSON: numbers and booleans bare, the rest quoted.
std::string json_scalar(const std::string& text) {
  if (text == "true" || text == "false" || try_parse_real(text)) return text;
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) continue;
    out += ch;
  }
  return out + "\"";
}

}  // namespace

std::optional<std::vector<ControlStep>> parse_controls(const YAML::Node& node, std::string& reason,
                                                       YAML::Mark& where) {
  if (node.IsDefined() && !node.IsNull() && !node.Mark().is_null()) where = node.Mark();
  if (!node.IsDefined() || !node.IsSequence()) {
    reason = "expected a list of timed changes such as [{at: 5s, parallel: 2}]";
    return std::nullopt;
  }
  std::vector<ControlStep> out;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    if (!item.Mark().is_null()) where = item.Mark();
    const std::string entry = "entry " + std::to_string(i + 1) + ": ";
    if (!item.IsMap()) {
      reason = entry + "expected a map such as {at: 5s, parallel: 2}";
      return std::nullopt;
    }
    ControlStep step;
    bool has_at = false;
    YAML::Emitter body;
    body << YAML::Flow << YAML::BeginMap;
    int keys = 0;
    for (const auto& kv : item) {
      const std::string key = kv.first.Scalar();
      if (!kv.second.Mark().is_null()) where = kv.second.Mark();
      if (key == "at") {
        std::string why;
        const auto d = kv.second.IsScalar() ? try_parse_duration(kv.second.Scalar(), why)
                                            : std::optional<double>{};
        if (!d || *d < 0 || *d > 86400) {
          reason = entry + "at: expected a duration between 0 s and 1 day" +
                   (why.empty() ? "" : " (" + why + ")");
          return std::nullopt;
        }
        step.at_s = *d;
        has_at = true;
        continue;
      }
      bool scalars = kv.second.IsScalar();
      if (kv.second.IsSequence()) {
        scalars = true;
        for (const auto& e : kv.second) scalars = scalars && e.IsScalar();
      }
      if (!scalars) {
        reason = entry + key + ": expected a value or a list of values";
        return std::nullopt;
      }
      body << YAML::Key << key << YAML::Value << kv.second;
      ++keys;
    }
    body << YAML::EndMap;
    if (!has_at) {
      reason = entry + "at: missing (when, into the data phase: {at: 5s, parallel: 2})";
      return std::nullopt;
    }
    if (keys == 0) {
      reason = entry +
               "names nothing to change (parallel, credits, fu.processing_time, "
               "ru_rate_factors, pause, resume)";
      return std::nullopt;
    }
    step.body = body.c_str();
    out.push_back(std::move(step));
  }
  // In time order (entries at the same time keep theirs): the EVM applies
  // them as their times come.
  std::stable_sort(out.begin(), out.end(),
                   [](const ControlStep& a, const ControlStep& b) { return a.at_s < b.at_s; });
  return out;
}

std::string controls_yaml(const std::vector<ControlStep>& steps) {
  std::string out = "[";
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string& b = steps[i].body;  // "{parallel: 2}"
    out += (i ? ", " : "") + std::string("{at: ") + duration_scalar(steps[i].at_s) + ", " +
           b.substr(1);
  }
  return out + "]";
}

std::string controls_json(const std::vector<ControlStep>& steps) {
  std::string out = "[";
  for (size_t i = 0; i < steps.size(); ++i) {
    out += (i ? "," : "") + std::string("{\"at\":") + format_real(steps[i].at_s);
    for (const auto& kv : YAML::Load(steps[i].body)) {
      out += ",\"" + kv.first.Scalar() + "\":";
      if (kv.second.IsSequence()) {
        std::string list = "[";
        for (const auto& e : kv.second)
          list += (list.size() > 1 ? "," : "") + json_scalar(e.Scalar());
        out += list + "]";
      } else {
        out += json_scalar(kv.second.Scalar());
      }
    }
    out += "}";
  }
  return out + "]";
}

}  // namespace evb::config_detail
