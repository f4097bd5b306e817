// The `faults:` list: timed fault injection entries ({at: 2s, kill: bu2},
// {at: 1s, stall: ru1, for: 800ms}, {at: 3s, delay: ru0, by: 5ms, for: 1s},
// {at: 2s, desync: ru1, by: 3}) and the run-long corruption entry
// ({corrupt: 0.001}), parsed into FaultSpec with errors naming
// the entry and the key, and written back in canonical form (durations in seconds). Whether a unit
// exists is a consistency rule (config_checks.cpp): it depends on `nodes`.
#include <cctype>
#include <set>

#include "core/config_detail.hpp"

namespace evb::config_detail {
namespace {

// A desync's `by`: a non-zero whole number of events, at most a billion either way.
std::optional<int64_t> parse_event_shift(const std::string& text) {
  size_t i = text.empty() || (text[0] != '-' && text[0] != '+') ? 0 : 1;
  if (i == text.size() || text.size() - i > 10) return std::nullopt;
  int64_t v = 0;
  for (; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    v = v * 10 + (text[i] - '0');
  }
  if (v == 0 || v > 1'000'000'000) return std::nullopt;
  return text[0] == '-' ? -v : v;
}

}  // namespace

std::optional<std::pair<char, int>> parse_unit_name(const std::string& name) {
  if (name == "evm") return std::pair<char, int>{'e', 0};
  if (name.size() < 3 || name.size() > 9 || (name.rfind("ru", 0) != 0 && name.rfind("bu", 0) != 0))
    return std::nullopt;
  int index = 0;
  for (size_t i = 2; i < name.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(name[i]))) return std::nullopt;
    index = index * 10 + (name[i] - '0');
  }
  return std::pair<char, int>{name[0], index};
}

std::optional<std::vector<FaultSpec>> parse_faults(const YAML::Node& node, std::string& reason,
                                                   YAML::Mark& where) {
  if (node.IsDefined() && !node.IsNull() && !node.Mark().is_null()) where = node.Mark();
  if (!node.IsDefined() || !node.IsSequence()) {
    reason = "expected a list of faults such as [{at: 2s, kill: bu2}]";
    return std::nullopt;
  }
  std::vector<FaultSpec> out;
  bool corrupt_seen = false;
  for (size_t i = 0; i < node.size(); ++i) {
    const YAML::Node item = node[i];
    if (!item.Mark().is_null()) where = item.Mark();
    const std::string at = "entry " + std::to_string(i + 1) + ": ";
    if (!item.IsMap()) {
      reason = at + "expected a map such as {at: 2s, kill: bu2}";
      return std::nullopt;
    }
    FaultSpec f;
    std::string by_text;
    std::set<std::string> seen;
    int kinds = 0;
    for (const auto& kv : item) {
      const std::string key = kv.first.Scalar();
      if (!kv.second.Mark().is_null()) where = kv.second.Mark();
      if (!kv.second.IsScalar()) {
        reason = at + key + ": expected a single value";
        return std::nullopt;
      }
      const std::string text = kv.second.Scalar();
      seen.insert(key);
      if (key == "kill" || key == "stall" || key == "delay" || key == "desync") {
        ++kinds;
        f.kind = key == "kill"    ? FaultSpec::Kind::kill
                 : key == "stall" ? FaultSpec::Kind::stall
                 : key == "delay" ? FaultSpec::Kind::delay
                                  : FaultSpec::Kind::desync;
        const auto unit = parse_unit_name(text);
        if (!unit) {
          reason = at + key + ": '" + text + "' is not a unit (ru<N>, bu<N> or evm)";
          return std::nullopt;
        }
        if (f.kind == FaultSpec::Kind::desync && unit->first != 'r') {
          reason = at + "desync: '" + text +
                   "' is not an RU (ru<N>): only a readout unit "
                   "serves fragments";
          return std::nullopt;
        }
        f.unit = text;
      } else if (key == "by") {
        by_text = text;  // a duration (delay) or an event count (desync): read below
      } else if (key == "at" || key == "for") {
        std::string why;
        auto d = try_parse_duration(text, why);
        if (!d || *d < 0 || *d > 86400) {
          reason = at + key + ": expected a duration between 0 s and 1 day, got '" + text + "'" +
                   (why.empty() ? "" : " (" + why + ")");
          return std::nullopt;
        }
        (key == "at" ? f.at_s : f.for_s) = *d;
      } else if (key == "corrupt") {
        ++kinds;
        f.kind = FaultSpec::Kind::corrupt;
        const auto p = try_parse_real(text);
        if (!p || !(*p > 0 && *p <= 1)) {
          reason = at +
                   "corrupt: expected a probability per fragment above 0 and at most 1 "
                   "(corrupt: 0.001), got '" +
                   text + "'";
          return std::nullopt;
        }
        f.probability = *p;
      } else {
        reason =
            at + "unknown key '" + key + "' (at, kill, stall, delay, desync, corrupt, for, by)" +
            did_you_mean(key, {"at", "kill", "stall", "delay", "desync", "corrupt", "for", "by"});
        return std::nullopt;
      }
    }
    if (kinds != 1) {
      reason = at + "expected exactly one of kill, stall, delay, desync, corrupt";
      return std::nullopt;
    }
    if (f.kind == FaultSpec::Kind::corrupt) {
      // Corruption lasts the whole run; it hits fragments, not a unit.
      for (const char* k : {"at", "for", "by"})
        if (seen.count(k)) {
          reason = at + k + ": corrupt applies to every fragment of the run and takes no " + k;
          return std::nullopt;
        }
      if (corrupt_seen) {
        reason = at + "corrupt: only one corrupt entry per run";
        return std::nullopt;
      }
      corrupt_seen = true;
      out.push_back(f);
      continue;
    }
    if (!seen.count("at")) {
      reason = at + "at: missing (when the fault happens, e.g. at: 2s)";
      return std::nullopt;
    }
    if (f.kind == FaultSpec::Kind::desync) {
      // A sync loss is not undone: it lasts from `at` to the end of the run.
      if (seen.count("for")) {
        reason = at + "for: a desync lasts to the end of the run and takes no for";
        return std::nullopt;
      }
      const auto shift = seen.count("by") ? parse_event_shift(by_text) : std::nullopt;
      if (!shift) {
        reason = at +
                 "by: a desync needs a non-zero whole number of events, at most 1e9 either "
                 "way (by: 3 skips three events ahead, by: -1 repeats one)" +
                 (seen.count("by") ? ", got '" + by_text + "'" : std::string());
        return std::nullopt;
      }
      f.by_events = *shift;
      out.push_back(f);
      continue;
    }
    if (seen.count("by")) {
      std::string why;
      auto d = try_parse_duration(by_text, why);
      if (!d || *d < 0 || *d > 86400) {
        reason = at + "by: expected a duration between 0 s and 1 day, got '" + by_text + "'" +
                 (why.empty() ? "" : " (" + why + ")");
        return std::nullopt;
      }
      f.by_s = *d;
    }
    const bool timed = f.kind != FaultSpec::Kind::kill;
    if (timed && (!seen.count("for") || f.for_s <= 0)) {
      reason = at + "for: " + to_string(f.kind) + " needs a duration above 0 (for: 800ms)";
      return std::nullopt;
    }
    if (!timed && seen.count("for")) {
      reason = at + "for: a kill has no duration";
      return std::nullopt;
    }
    if (f.kind == FaultSpec::Kind::delay && (!seen.count("by") || f.by_s <= 0)) {
      reason = at + "by: a delay needs the latency it adds above 0 (by: 5ms)";
      return std::nullopt;
    }
    if (f.kind != FaultSpec::Kind::delay && seen.count("by")) {
      reason = at + "by: only a delay or a desync takes by";
      return std::nullopt;
    }
    out.push_back(f);
  }
  return out;
}

std::string faults_yaml(const std::vector<FaultSpec>& faults) {
  std::string out = "[";
  for (size_t i = 0; i < faults.size(); ++i) {
    const FaultSpec& f = faults[i];
    if (f.kind == FaultSpec::Kind::corrupt) {
      out += (i ? ", " : "") + std::string("{corrupt: ") + format_real(f.probability) + "}";
      continue;
    }
    out += (i ? ", " : "") + std::string("{at: ") + duration_scalar(f.at_s) + ", " +
           to_string(f.kind) + ": " + f.unit;
    if (f.kind == FaultSpec::Kind::delay) out += ", by: " + duration_scalar(f.by_s);
    if (f.kind == FaultSpec::Kind::desync) out += ", by: " + std::to_string(f.by_events);
    if (f.kind != FaultSpec::Kind::kill && f.kind != FaultSpec::Kind::desync)
      out += ", for: " + duration_scalar(f.for_s);
    out += "}";
  }
  return out + "]";
}

std::string faults_json(const std::vector<FaultSpec>& faults) {
  std::string out = "[";
  for (size_t i = 0; i < faults.size(); ++i) {
    const FaultSpec& f = faults[i];
    if (f.kind == FaultSpec::Kind::corrupt) {
      out += (i ? "," : "") + std::string("{\"corrupt\":") + format_real(f.probability) + "}";
      continue;
    }
    out += (i ? "," : "") + std::string("{\"at\":") + format_real(f.at_s) + ",\"" +
           to_string(f.kind) + "\":\"" + f.unit + "\"";
    if (f.kind == FaultSpec::Kind::delay) out += ",\"by\":" + format_real(f.by_s);
    if (f.kind == FaultSpec::Kind::desync) out += ",\"by\":" + std::to_string(f.by_events);
    if (f.kind != FaultSpec::Kind::kill && f.kind != FaultSpec::Kind::desync)
      out += ",\"for\":" + format_real(f.for_s);
    out += "}";
  }
  return out + "]";
}

}  // namespace evb::config_detail
