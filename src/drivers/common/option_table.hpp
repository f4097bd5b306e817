#pragma once
// A driver's options (driver_options.*), each declared once.
//
// A row binds the KeySpec of one option (name, type, default, unit, range or
// choices, doc: what validation, `evbench config --explain` and
// docs/CONFIG.md read) to the field of the driver's options struct it fills,
// as the core key table (core/config_table.cpp) binds its keys to Config.
// The register half of a driver hands specs() to the registry; the entry
// half gets its struct from parse(config): every row's default first, then
// the values the config gives. The config loader has already checked those
// values against the same specs; a caller that bypasses it (tests) gets a
// ConfigError naming driver_options.KEY and the value.
//
// A row's field is a member pointer (&TcpOptions::port), a nested member
// (T::nested(&TcpOptions::socket, &SocketOptions::sndbuf)), an accessor
// returning a reference, or a setter taking the typed value
// ([](TcpOptions& o, bool on) { ... }).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/config.hpp"
#include "core/config_table.hpp"

namespace evb {

namespace option_values {

// A value's text read against its spec (type, range, choices); each throws
// ConfigError "driver_options.KEY: ..." naming the value.
int64_t integer(const KeySpec& spec, const std::string& text);
uint64_t size(const KeySpec& spec, const std::string& text);
double seconds(const KeySpec& spec, const std::string& text);
bool boolean(const KeySpec& spec, const std::string& text);
size_t choice(const KeySpec& spec, const std::string& text);  // index into spec.choices
[[noreturn]] void bad(const KeySpec& spec, const std::string& text, const std::string& what);

// "tls", "ucx.tls" and "driver_options.tls" all name the key "tls".
std::string key_of(const std::string& raw_key);

// Stores `v` through `field` (member pointer, accessor or setter), converted
// to the field's type: durations in seconds become milliseconds or stay
// double seconds, integers narrow to the field's type (the spec's range fits
// it).
template <class O, class F, class V>
void store(O& o, const F& field, V v) {
  if constexpr (std::is_invocable_v<const F&, O&, V>) {
    std::invoke(field, o, v);
  } else {
    auto& target = std::invoke(field, o);
    using T = std::remove_reference_t<decltype(target)>;
    if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
      target = std::chrono::milliseconds(static_cast<int64_t>(std::llround(v * 1000)));
    } else {
      target = static_cast<T>(v);
    }
  }
}

}  // namespace option_values

// A TextCheck returns nullptr when a string value is acceptable, else what
// was expected ("provider name"): the error reads "bad WHAT 'VALUE'".
using TextCheck = const char* (*)(const std::string& value);

template <class O>
class OptionTable {
 public:
  struct Row {
    KeySpec spec;
    std::function<void(O&, const KeySpec&, const std::string&)> set;
  };

  OptionTable(std::initializer_list<Row> rows) : rows_(rows) {
    for (const Row& r : rows_) specs_.push_back(r.spec);
  }
  // The driver's own rows, then rows embedded from elsewhere (the chassis's:
  // drivers/common/chassis_options.hpp).
  OptionTable(std::initializer_list<Row> rows, const std::vector<Row>& embedded) : rows_(rows) {
    rows_.insert(rows_.end(), embedded.begin(), embedded.end());
    for (const Row& r : rows_) specs_.push_back(r.spec);
  }

  const std::vector<KeySpec>& specs() const { return specs_; }

  // The defaults, then config->driver_options (keys this table knows; other
  // drivers' keys may share the map: the config loader refuses typos).
  // `config` may be null (defaults only).
  O parse(const Config* config) const {
    O o{};
    for (const Row& r : rows_) r.set(o, r.spec, r.spec.default_value);
    if (config == nullptr) return o;
    for (const auto& [raw_key, value] : config->driver_options) {
      const std::string key = option_values::key_of(raw_key);
      for (const Row& r : rows_)
        if (r.spec.path == key) r.set(o, r.spec, value);
    }
    return o;
  }

  // The field `inner` of the member `outer` (o.socket.sndbuf), for a row.
  template <class M, class N>
  static auto nested(M O::*outer, N M::*inner) {
    return [outer, inner](O& o) -> N& { return (o.*outer).*inner; };
  }

  // ---- rows, one per KeyType; the arguments follow KeySpec's order ----

  // A string; an empty value means the default (after `check`, which may
  // refuse it).
  template <class F>
  static Row text(const char* name, F field, const char* def, const char* doc,
                  TextCheck check = nullptr) {
    return {spec(name, KeyType::string, def, "", doc),
            [field, check](O& o, const KeySpec& s, const std::string& v) {
              if (check != nullptr)
                if (const char* what = check(v)) option_values::bad(s, v, what);
              option_values::store(o, field, v.empty() ? s.default_value : v);
            }};
  }

  template <class F>
  static Row integer(const char* name, F field, const char* def, const char* unit, double min,
                     double max, const char* doc) {
    return {spec(name, KeyType::integer, def, unit, doc, min, max),
            [field](O& o, const KeySpec& s, const std::string& v) {
              option_values::store(o, field, option_values::integer(s, v));
            }};
  }

  // Bytes (unit B).
  template <class F>
  static Row size(const char* name, F field, const char* def, double min, double max,
                  const char* doc) {
    return {spec(name, KeyType::size, def, "B", doc, min, max),
            [field](O& o, const KeySpec& s, const std::string& v) {
              option_values::store(o, field, option_values::size(s, v));
            }};
  }

  // Seconds, >= 0 (timeouts and intervals).
  template <class F>
  static Row duration(const char* name, F field, const char* def, const char* doc) {
    return {spec(name, KeyType::duration, def, "s", doc, 0),
            [field](O& o, const KeySpec& s, const std::string& v) {
              option_values::store(o, field, option_values::seconds(s, v));
            }};
  }

  template <class F>
  static Row boolean(const char* name, F field, const char* def, const char* doc) {
    return {spec(name, KeyType::boolean, def, "", doc),
            [field](O& o, const KeySpec& s, const std::string& v) {
              option_values::store(o, field, option_values::boolean(s, v));
            }};
  }

  // One of `values`' words, stored as its value (an enum).
  template <class F, class E>
  static Row choice(const char* name, F field, const char* def,
                    std::vector<std::pair<const char*, E>> values, const char* doc) {
    KeySpec k = spec(name, KeyType::choice, def, "", doc);
    for (const auto& [word, value] : values) k.choices.emplace_back(word);
    return {std::move(k), [field, values](O& o, const KeySpec& s, const std::string& v) {
              option_values::store(o, field, values[option_values::choice(s, v)].second);
            }};
  }

 private:
  static KeySpec spec(const char* name, KeyType type, const char* def, const char* unit,
                      const char* doc, double min = -std::numeric_limits<double>::infinity(),
                      double max = std::numeric_limits<double>::infinity()) {
    KeySpec k;
    k.path = name;
    k.type = type;
    k.default_value = def;
    k.unit = unit;
    k.min = min;
    k.max = max;
    k.doc = doc;
    return k;
  }

  std::vector<Row> rows_;
  std::vector<KeySpec> specs_;
};

}  // namespace evb
