// Typed parsing of one YAML value against its KeySpec: the type, range and
// choice checks shared by core keys and driver options.
#include <cmath>
#include <stdexcept>

#include "core/config_detail.hpp"

namespace evb::config_detail {
namespace {

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a map";
  return "'" + node.Scalar() + "'";
}

std::string join(const std::vector<std::string>& words, const char* sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

std::string show(const KeySpec& spec, double v) {
  if (spec.type == KeyType::size) return format_size(static_cast<uint64_t>(v));
  if (spec.type == KeyType::duration) return format_duration(v);
  return format_real(v);
}

// "" when v is within [spec.min, spec.max]; else the reason.
std::string check_range(const KeySpec& spec, double v) {
  if (v >= spec.min && v <= spec.max) return "";
  const bool lo = std::isfinite(spec.min), hi = std::isfinite(spec.max);
  if (lo && hi)
    return "must be between " + show(spec, spec.min) + " and " + show(spec, spec.max) + ", got " +
           show(spec, v);
  if (lo) return "must be at least " + show(spec, spec.min) + ", got " + show(spec, v);
  return "must be at most " + show(spec, spec.max) + ", got " + show(spec, v);
}

void set_mark(YAML::Mark& where, const YAML::Node& node) {
  if (node.IsDefined() && !node.IsNull() && !node.Mark().is_null()) where = node.Mark();
}

}  // namespace

std::optional<Value> parse_value(const KeySpec& spec, const YAML::Node& node, std::string& reason,
                                 YAML::Mark& where) {
  set_mark(where, node);
  Value v;
  const bool scalar = node.IsDefined() && node.IsScalar();
  const std::string text = scalar ? node.Scalar() : std::string();
  auto wrong = [&](const std::string& expected) {
    reason = "expected " + expected + ", got " + describe(node);
    return std::nullopt;
  };
  switch (spec.type) {
    case KeyType::integer: {
      std::string expected = "an integer";
      for (const auto& w : spec.choices) expected += " or '" + w + "'";
      if (!scalar) return wrong(expected);
      for (const auto& w : spec.choices)
        if (text == w) {
          v.text = w;
          return v;
        }
      auto i = try_parse_integer(text);
      if (!i) return wrong(expected);
      reason = check_range(spec, static_cast<double>(*i));
      if (!reason.empty()) return std::nullopt;
      v.integer = *i;
      return v;
    }
    case KeyType::real: {
      if (!scalar) return wrong("a number");
      auto r = try_parse_real(text);
      if (!r) return wrong("a number");
      reason = check_range(spec, *r);
      if (!reason.empty()) return std::nullopt;
      v.real = *r;
      return v;
    }
    case KeyType::boolean: {
      if (!scalar) return wrong("true or false");
      auto b = try_parse_boolean(text);
      if (!b) return wrong("true or false");
      v.boolean = *b;
      return v;
    }
    case KeyType::size: {
      if (!scalar) return wrong("a size (bytes, or a number with a unit such as 64KiB)");
      auto s = try_parse_size(text, reason);
      if (!s) return std::nullopt;
      reason = check_range(spec, static_cast<double>(*s));
      if (!reason.empty()) return std::nullopt;
      v.bytes = *s;
      return v;
    }
    case KeyType::duration: {
      if (!scalar) return wrong("a duration (seconds, or a number with a unit such as 250ms)");
      auto d = try_parse_duration(text, reason);
      if (!d) return std::nullopt;
      reason = check_range(spec, *d);
      if (!reason.empty()) return std::nullopt;
      v.real = *d;
      return v;
    }
    case KeyType::string: {
      if (!scalar) return wrong("a string");
      v.text = text;
      return v;
    }
    case KeyType::choice: {
      if (!scalar) return wrong("one of " + join(spec.choices, ", "));
      for (const auto& c : spec.choices)
        if (text == c) {
          v.text = c;
          return v;
        }
      reason = "'" + text + "' is not one of " + join(spec.choices, ", ") +
               did_you_mean(text, spec.choices);
      return std::nullopt;
    }
    case KeyType::real_list: {
      if (!node.IsDefined() || !node.IsSequence())
        return wrong("a list of numbers such as [1, 1, 2, 1]");
      for (size_t i = 0; i < node.size(); ++i) {
        const YAML::Node item = node[i];
        set_mark(where, item);
        const std::string at = "element " + std::to_string(i + 1) + ": ";
        std::optional<double> r;
        if (item.IsScalar()) r = try_parse_real(item.Scalar());
        if (!r) {
          reason = at + "expected a number, got " + describe(item);
          return std::nullopt;
        }
        reason = check_range(spec, *r);
        if (!reason.empty()) {
          reason = at + reason;
          return std::nullopt;
        }
        v.reals.push_back(*r);
      }
      return v;
    }
    case KeyType::string_map: {
      if (!node.IsDefined() || !node.IsMap()) return wrong("a map of key: value");
      for (const auto& kv : node) {
        if (!kv.second.IsScalar()) {
          set_mark(where, kv.second);
          reason = kv.first.Scalar() + ": expected a single value, got " + describe(kv.second);
          return std::nullopt;
        }
        v.map[kv.first.Scalar()] = kv.second.Scalar();
      }
      return v;
    }
    case KeyType::fault_list: {
      auto f = parse_faults(node, reason, where);
      if (!f) return std::nullopt;
      v.faults = std::move(*f);
      return v;
    }
    case KeyType::control_list: {
      auto c = parse_controls(node, reason, where);
      if (!c) return std::nullopt;
      v.controls = std::move(*c);
      return v;
    }
    case KeyType::background_list: {
      auto b = parse_background(node, reason, where);
      if (!b) return std::nullopt;
      v.background = std::move(*b);
      return v;
    }
  }
  reason = "unsupported key type";
  return std::nullopt;
}

Value parse_default(const KeySpec& spec) {
  KeySpec plain = spec;  // choices filled at run time (driver, bootstrap) are not known here
  if (plain.type == KeyType::choice && plain.choices.empty()) plain.type = KeyType::string;
  if (plain.default_value.empty() && plain.type == KeyType::string) return Value{};
  std::string reason;
  YAML::Mark where;
  auto v = parse_value(plain, YAML::Load(plain.default_value), reason, where);
  if (!v) throw std::logic_error("bad default for key " + spec.path + ": " + reason);
  return *v;
}

std::string canonical_scalar(const KeySpec& spec, const Value& v) {
  switch (spec.type) {
    case KeyType::integer:
      return v.text.empty() ? std::to_string(v.integer) : v.text;
    case KeyType::real:
      return format_real(v.real);
    case KeyType::duration:
      return duration_scalar(v.real);
    case KeyType::boolean:
      return v.boolean ? "true" : "false";
    case KeyType::size:
      return std::to_string(v.bytes);
    case KeyType::string:
    case KeyType::choice:
      return v.text;
    case KeyType::real_list: {
      std::string out = "[";
      for (size_t i = 0; i < v.reals.size(); ++i) out += (i ? ", " : "") + format_real(v.reals[i]);
      return out + "]";
    }
    case KeyType::string_map: {
      std::string out = "{";
      for (const auto& [k, val] : v.map) out += (out.size() > 1 ? ", " : "") + k + ": " + val;
      return out + "}";
    }
    case KeyType::fault_list:
      return faults_yaml(v.faults);
    case KeyType::control_list:
      return controls_yaml(v.controls);
    case KeyType::background_list:
      return background_yaml(v.background);
  }
  return "";
}

}  // namespace evb::config_detail
