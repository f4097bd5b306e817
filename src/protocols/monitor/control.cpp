// parse_control: a POST /control body (YAML or JSON) to a checked request.
// Every key is checked against the limits fixed at start before anything is
// returned as accepted; the first refused key refuses the whole request, with
// a message naming the key and the limit.
#include "protocols/monitor/control.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

#include "core/config_loader.hpp"
#include "core/error.hpp"

namespace evb {
namespace {

constexpr const char* kMappingHint = "body must be a mapping such as {\"parallel\": 2}";
constexpr const char* kKeys[] = {"parallel",        "credits", "fu.processing_time",
                                 "ru_rate_factors", "pause",   "resume"};

// A refusal carried out of the per-key checks.
struct Refusal {
  int status;
  std::string message;
};

// Text from the body quoted back in a message, kept short.
std::string quoted(const std::string& text) {
  constexpr size_t kMax = 40;
  if (text.size() <= kMax) return "'" + text + "'";
  return "'" + text.substr(0, kMax) + "...'";
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// A scalar the client wrote as a string ("2", '2'), not a plain number/word.
bool is_quoted(const YAML::Node& node) {
  return node.Tag() == "!";
}

const YAML::Node& scalar(const YAML::Node& node, const std::string& key, const char* expected) {
  if (!node.IsDefined() || node.IsNull())
    throw Refusal{400, key + ": a value is required (" + expected + ")"};
  if (!node.IsScalar()) throw Refusal{400, key + ": expected " + expected + ", got a list or map"};
  return node;
}

int64_t integer(const YAML::Node& node, const std::string& key) {
  const std::string& text = scalar(node, key, "an integer").Scalar();
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (is_quoted(node) || text.empty() || ec != std::errc() || ptr != end)
    throw Refusal{400, key + ": expected an integer, got " + quoted(text)};
  return v;
}

double real(const YAML::Node& node, const std::string& key) {
  const std::string& text = scalar(node, key, "a number").Scalar();
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (is_quoted(node) || text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v))
    throw Refusal{400, key + ": expected a number, got " + quoted(text)};
  return v;
}

// `true` (the only value pause and resume take).
void only_true(const YAML::Node& node, const std::string& key, const char* instead) {
  const std::string& text = scalar(node, key, "true").Scalar();
  if (is_quoted(node) || text != "true")
    throw Refusal{400, key + ": the only value is true (" + instead + "), got " + quoted(text)};
}

// 1..max, `what` saying where max comes from.
int count_in_range(const YAML::Node& node, const std::string& key, int max,
                   const std::string& what) {
  const int64_t v = integer(node, key);
  const std::string range = " (1.." + std::to_string(max) + ")";
  if (v > max) throw Refusal{400, key + ": " + std::to_string(v) + " exceeds " + what + range};
  if (v < 1) throw Refusal{400, key + ": " + std::to_string(v) + " is below 1" + range};
  return static_cast<int>(v);
}

double processing_time(const YAML::Node& node, const ControlLimits& limits) {
  const std::string key = "fu.processing_time";
  const std::string& text =
      scalar(node, key, "a duration such as 0.002, \"2ms\" or \"500us\"").Scalar();
  double seconds = 0;
  try {
    seconds = parse_duration(text, key);
  } catch (const ConfigError& e) {
    throw Refusal{400, e.what()};
  }
  const double max = limits.processing_time_max_s;
  if (seconds > max)
    throw Refusal{400, key + ": " + number_text(seconds) + " s exceeds " + number_text(max) +
                           " s, the longest processing time this run allows (0.." +
                           number_text(max) + " s)"};
  return seconds;
}

std::vector<double> rate_factors(const YAML::Node& node, const ControlLimits& limits) {
  const std::string key = "ru_rate_factors";
  if (!node.IsSequence())
    throw Refusal{
        400, key + ": expected a list of " + std::to_string(limits.nodes) + " numbers, one per RU"};
  if (node.size() != static_cast<size_t>(limits.nodes))
    throw Refusal{400, key + ": " + std::to_string(node.size()) + " entries, this run has " +
                           std::to_string(limits.nodes) + " RUs (one factor per RU)"};
  std::vector<double> out;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string entry = key + "[" + std::to_string(i) + "]";
    const double v = real(node[i], entry);
    const bool bounded = i < limits.rate_factor_max.size();
    const double max = bounded ? limits.rate_factor_max[i] : 0;
    const std::string range = bounded ? " (0 < factor <= " + number_text(max) + ")" : "";
    if (!(v > 0)) throw Refusal{400, entry + ": " + number_text(v) + " must be above 0" + range};
    if (bounded && v > max)
      throw Refusal{400, entry + ": " + number_text(v) + " exceeds " + number_text(max) +
                             ", the largest factor RU " + std::to_string(i) + "'s ring holds" +
                             range};
    out.push_back(v);
  }
  return out;
}

// `background.N.active` (N from 1): the entry's index from 0 and on/off.
std::pair<int, bool> background_switch(const std::string& key, const YAML::Node& value,
                                       const ControlLimits& limits) {
  constexpr std::string_view kHead = "background.";
  constexpr std::string_view kTail = ".active";
  const std::string_view k(key);
  const int entries = limits.background_entries;
  const std::string range = entries > 0
                                ? " (this run's entries: 1.." + std::to_string(entries) + ")"
                                : " (this run has no background entries)";
  const std::string_view n = k.size() > kHead.size() + kTail.size() && k.ends_with(kTail)
                                 ? k.substr(kHead.size(), k.size() - kHead.size() - kTail.size())
                                 : std::string_view();
  int entry = 0;
  const auto [ptr, ec] = std::from_chars(n.data(), n.data() + n.size(), entry);
  if (n.empty() || ec != std::errc() || ptr != n.data() + n.size())
    throw Refusal{400, "unknown key " + quoted(key) +
                           "; a background entry is switched by background.N.active" + range};
  if (entry < 1 || entry > entries)
    throw Refusal{400, key + ": no background entry " + std::to_string(entry) + range};
  const std::string& text = scalar(value, key, "true or false").Scalar();
  if (is_quoted(value) || (text != "true" && text != "false"))
    throw Refusal{400, key + ": expected true (send) or false (stop), got " + quoted(text)};
  return {entry - 1, text == "true"};
}

std::string changeable_keys(const ControlLimits& limits) {
  std::string out;
  for (const char* k : kKeys) {
    bool refused = false;
    for (const auto& [key, reason] : limits.not_here) refused = refused || key == k;
    if (refused) continue;
    out += out.empty() ? "" : ", ";
    out += k;
  }
  if (limits.background_entries > 0)
    out += (out.empty() ? "" : ", ") + std::string("background.N.active (N 1..") +
           std::to_string(limits.background_entries) + ")";
  return out.empty() ? "none in this run" : out;
}

// Checks one key and records it in `request`.
void apply_key(const std::string& key, const YAML::Node& value, const ControlLimits& limits,
               ControlRequest& request) {
  for (const auto& [refused, reason] : limits.not_here)
    if (key == refused) throw Refusal{409, key + ": not changeable in this run: " + reason};
  if (key == "parallel") {
    request.parallel = count_in_range(value, key, limits.nodes,
                                      "the " + std::to_string(limits.nodes) + " nodes of this run");
  } else if (key == "credits") {
    request.credits = count_in_range(
        value, key, limits.credits_allocated,
        "the " + std::to_string(limits.credits_allocated) + " slots per BU allocated at start");
  } else if (key == "fu.processing_time") {
    request.processing_time_s = processing_time(value, limits);
  } else if (key == "ru_rate_factors") {
    request.ru_rate_factors = rate_factors(value, limits);
  } else if (key == "pause") {
    only_true(value, key, "to resume send {\"resume\": true}");
    request.pause = true;
  } else if (key == "resume") {
    only_true(value, key, "to pause send {\"pause\": true}");
    request.pause = false;
  } else if (key.starts_with("background.")) {
    request.background.push_back(background_switch(key, value, limits));
  } else {
    throw Refusal{400, "unknown key " + quoted(key) +
                           "; the keys that can be changed: " + changeable_keys(limits)};
  }
}

ControlRequest parse_mapping(const YAML::Node& root, const ControlLimits& limits) {
  ControlRequest request;
  std::set<std::string> seen;
  bool pause = false;
  bool resume = false;
  for (const auto& item : root) {
    if (!item.first.IsScalar())
      throw Refusal{400, std::string("keys must be names; ") + kMappingHint};
    const std::string key = item.first.Scalar();
    if (!seen.insert(key).second) throw Refusal{400, key + ": given twice"};
    apply_key(key, item.second, limits, request);
    pause = pause || key == "pause";
    resume = resume || key == "resume";
  }
  if (pause && resume) throw Refusal{400, "pause and resume together: send one of them"};
  return request;
}

}  // namespace

ControlParse parse_control(std::string_view body, const ControlLimits& limits) {
  ControlParse out;
  try {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(body));
    } catch (const YAML::Exception& e) {
      throw Refusal{
          400, "not YAML or JSON (line " + std::to_string(e.mark.line + 1) + "): " + kMappingHint};
    }
    if (!root.IsMap() || root.size() == 0) throw Refusal{400, kMappingHint};
    out.request = parse_mapping(root, limits);
  } catch (const Refusal& r) {
    out.status = r.status;
    out.message = r.message;
    out.request = ControlRequest{};
  }
  return out;
}

}  // namespace evb
