// The `background:` list: congestors beside the event builder
// ([{pattern: incast, ranks: 3, size: 256KiB, in_flight: 8, start: 1s,
// stop: 3s}]), every field but `pattern` with a default, parsed into
// BackgroundSpec with errors naming the entry and the field, and written
// back in canonical form (sizes in bytes, durations in seconds, `stop: end`
// for the run's configured end). Whether the protocol can have them is a
// consistency rule (config_checks.cpp).
#include <algorithm>
#include <cmath>
#include <set>

#include "core/config_detail.hpp"

namespace evb::config_detail {
namespace {

using Pattern = BackgroundSpec::Pattern;

constexpr std::array kPatterns{Pattern::incast, Pattern::alltoall, Pattern::bcast,
                               Pattern::write_incast, Pattern::one_to_one};

std::optional<Pattern> pattern_named(const std::string& text) {
  for (Pattern p : kPatterns)
    if (text == to_string(p)) return p;
  return std::nullopt;
}

std::string pattern_choices() {
  std::string out;
  for (Pattern p : kPatterns) out += (out.empty() ? "" : ", ") + std::string(to_string(p));
  return out;
}

// A whole number in [lo, hi], or nullopt.
std::optional<int> whole(const std::string& text, int lo, int hi) {
  const auto v = try_parse_integer(text);
  if (!v || *v < lo || *v > hi) return std::nullopt;
  return static_cast<int>(*v);
}

// One field of an entry into `b`; "" when it reads, else why not.
std::string read_field(BackgroundSpec& b, const std::string& key, const std::string& text) {
  std::string why;
  if (key == "pattern") {
    const auto p = pattern_named(text);
    if (!p) return "'" + text + "' is not a pattern (" + pattern_choices() + ")";
    b.pattern = *p;
  } else if (key == "ranks" && !text.empty() && text.back() == '%') {
    const auto v = try_parse_real(trim_blanks(text.substr(0, text.size() - 1)));
    if (!v || !(*v > 0) || *v > 100)
      return "'" + text + "': expected a share of the run's hosts above 0% and at most 100%";
    b.hosts_percent = *v;
  } else if (key == "ranks") {
    const auto v = whole(text, 2, 1024);
    if (!v)
      return "expected a whole number of processes from 2 to 1024 or a share of hosts such as "
             "50%, got '" +
             text + "'";
    b.ranks = *v;
    b.hosts_percent = 0;
  } else if (key == "in_flight") {
    const auto v = whole(text, 1, 256);
    if (!v) return "expected a whole number of messages from 1 to 256, got '" + text + "'";
    b.in_flight = *v;
  } else if (key == "shift") {
    const auto v = whole(text, 1, 1023);
    if (!v) return "expected a whole number from 1 to 1023, got '" + text + "'";
    b.shift = *v;
  } else if (key == "size") {
    const auto v = try_parse_size(text, why);
    if (!v || *v < 64 || *v > (64ull << 20))
      return "expected a size from 64 B to 64 MiB" + (why.empty() ? "" : " (" + why + ")");
    b.size = *v;
  } else if (key == "start" || (key == "stop" && text != "end")) {
    const auto v = try_parse_duration(text, why);
    if (!v || *v < 0 || *v > 86400)
      return "expected a duration between 0 s and 1 day" +
             std::string(key == "stop" ? " or end" : "") + (why.empty() ? "" : " (" + why + ")");
    (key == "start" ? b.start_s : b.stop_s) = *v;
  } else if (key == "stop") {
    b.stop_s = -1;
  } else {
    return "unknown field (pattern, ranks, size, in_flight, shift, start, stop)";
  }
  return "";
}

std::string stop_text(double stop_s) {
  return stop_s < 0 ? "end" : duration_scalar(stop_s);
}

std::string ranks_text(const BackgroundSpec& b) {
  return b.hosts_percent > 0 ? format_real(b.hosts_percent) + "%" : std::to_string(b.ranks);
}

// An entry's one-to-one shift against its ranks: "" or why it is refused.
std::string shift_problem(const BackgroundSpec& b) {
  if (b.pattern != Pattern::one_to_one || b.shift % b.ranks != 0) return "";
  return "shift: " + std::to_string(b.shift) + " is a multiple of ranks (" +
         std::to_string(b.ranks) + (b.hosts_percent > 0 ? ", " + ranks_text(b) + " of hosts" : "") +
         "): every rank would send to itself";
}

}  // namespace

std::optional<std::vector<BackgroundSpec>> parse_background(const YAML::Node& given,
                                                            std::string& reason,
                                                            YAML::Mark& where) {
  if (given.IsDefined() && !given.IsNull() && !given.Mark().is_null()) where = given.Mark();
  // The list may come as one string of flow YAML, as a scan axis (whose
  // values are scalars) writes it: background: '[{pattern: incast}]'.
  YAML::Node node = given;
  if (given.IsScalar() && !given.Scalar().empty() && given.Scalar().front() == '[') {
    try {
      node = YAML::Load(given.Scalar());
    } catch (const YAML::Exception& e) {
      reason = "'" + given.Scalar() + "' is not a YAML list: " + e.msg;
      return std::nullopt;
    }
    // Errors point at the string, not at a place inside it.
    YAML::Mark inside;
    return parse_background(node, reason, inside);
  }
  if (!node.IsDefined() || !node.IsSequence()) {
    reason = "expected a list of congestors such as [{pattern: incast, ranks: 3}] ([] for none)";
    return std::nullopt;
  }
  std::vector<BackgroundSpec> out;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    if (!item.Mark().is_null()) where = item.Mark();
    const std::string entry = "entry " + std::to_string(i + 1) + ": ";
    if (!item.IsMap()) {
      reason = entry + "expected a map such as {pattern: incast, ranks: 3, size: 256KiB}";
      return std::nullopt;
    }
    BackgroundSpec b;
    std::set<std::string> seen;
    for (const auto& kv : item) {
      const std::string key = kv.first.Scalar();
      if (!kv.second.Mark().is_null()) where = kv.second.Mark();
      if (!kv.second.IsScalar()) {
        reason = entry + key + ": expected a single value";
        return std::nullopt;
      }
      if (!seen.insert(key).second) {
        reason = entry + key + ": given twice";
        return std::nullopt;
      }
      if (const std::string why = read_field(b, key, kv.second.Scalar()); !why.empty()) {
        reason = entry + key + ": " + why;
        return std::nullopt;
      }
    }
    if (!item.Mark().is_null()) where = item.Mark();
    if (!seen.count("pattern")) {
      reason = entry + "pattern: missing (" + pattern_choices() + ")";
      return std::nullopt;
    }
    if (b.stop_s >= 0 && b.stop_s <= b.start_s) {
      reason = entry + "stop: " + duration_scalar(b.stop_s) + " s is not after start (" +
               duration_scalar(b.start_s) + " s)";
      return std::nullopt;
    }
    if (const std::string why = b.hosts_percent > 0 ? "" : shift_problem(b); !why.empty()) {
      reason = entry + why;  // a share is checked once it is resolved (resolve_background_shares)
      return std::nullopt;
    }
    out.push_back(b);
  }
  return out;
}

std::string background_yaml(const std::vector<BackgroundSpec>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    const BackgroundSpec& b = list[i];
    out += (i ? ", " : "") + std::string("{pattern: ") + to_string(b.pattern) +
           ", ranks: " + ranks_text(b) + ", size: " + std::to_string(b.size) +
           ", in_flight: " + std::to_string(b.in_flight) + ", shift: " + std::to_string(b.shift) +
           ", start: " + duration_scalar(b.start_s) + ", stop: " + stop_text(b.stop_s) + "}";
  }
  return out + "]";
}

std::string background_json(const std::vector<BackgroundSpec>& list) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) {
    const BackgroundSpec& b = list[i];
    const std::string stop = b.stop_s < 0 ? "\"end\"" : format_real(b.stop_s);
    out += (i ? "," : "") + std::string("{\"pattern\":\"") + to_string(b.pattern) +
           "\",\"ranks\":" + std::to_string(b.ranks) +
           (b.hosts_percent > 0 ? ",\"hosts_percent\":" + format_real(b.hosts_percent) : "") +
           ",\"size\":" + std::to_string(b.size) + ",\"in_flight\":" + std::to_string(b.in_flight) +
           ",\"shift\":" + std::to_string(b.shift) + ",\"start\":" + format_real(b.start_s) +
           ",\"stop\":" + stop + "}";
  }
  return out + "]";
}

int background_share_ranks(double hosts_percent, int nodes) {
  const auto share = static_cast<int>(std::floor(hosts_percent * nodes / 100.0 + 0.5));
  return std::max(2, share);
}

std::string resolve_background_shares(Config& c) {
  for (size_t i = 0; i < c.background.size(); ++i) {
    BackgroundSpec& b = c.background[i];
    if (b.hosts_percent <= 0) continue;
    b.ranks = background_share_ranks(b.hosts_percent, c.nodes);
    if (const std::string why = shift_problem(b); !why.empty())
      return "entry " + std::to_string(i + 1) + ": " + why;
  }
  return "";
}

std::optional<KeyProblem> background_problem(const Config& c, const PluginKeys& p,
                                             bool event_builder) {
  if (c.background.empty()) return std::nullopt;
  if (!event_builder)
    return KeyProblem{{"background", "protocol"},
                      "congestors run beside an event builder; protocol " + c.protocol +
                          " builds no events (use pull, push or pull-noevm)"};
  const double end = c.warmup_s + c.duration_s;
  for (size_t i = 0; i < c.background.size(); ++i) {
    const BackgroundSpec& b = c.background[i];
    const std::string entry = "entry " + std::to_string(i + 1) + ": ";
    if (b.stop_s < 0 && b.start_s >= end)
      return KeyProblem{{"background", "duration"},
                        entry + "start: " + duration_scalar(b.start_s) +
                            " s is not before the run's end (warmup + duration = " +
                            duration_scalar(end) + " s)"};
    if (b.pattern != Pattern::write_incast) continue;
    const auto caps = capabilities_of(c, p);
    if (!caps || caps->rdma_write) continue;
    std::string writers;
    for (const auto& d : drivers_with(c, p, [](const Capabilities& k) { return k.rdma_write; }))
      writers += (writers.empty() ? "" : ", ") + d;
    return KeyProblem{{"background", "driver"},
                      entry + "write-incast: driver " + c.driver + " has no rdma_write" +
                          (writers.empty() ? "" : " (use " + writers + ")")};
  }
  return std::nullopt;
}

}  // namespace evb::config_detail

namespace evb {

const char* to_string(BackgroundSpec::Pattern v) {
  switch (v) {
    case BackgroundSpec::Pattern::incast:
      return "incast";
    case BackgroundSpec::Pattern::alltoall:
      return "alltoall";
    case BackgroundSpec::Pattern::bcast:
      return "bcast";
    case BackgroundSpec::Pattern::write_incast:
      return "write-incast";
    case BackgroundSpec::Pattern::one_to_one:
      return "one-to-one";
  }
  return "?";
}

}  // namespace evb
