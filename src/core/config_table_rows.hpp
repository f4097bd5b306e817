#pragma once
// The helpers the key table (config_table.cpp) writes its rows with: a
// KeySpec from its parts, a choice key from an enum, and the typed Values
// the getters return. In a namespace of their own, brought into scope only
// inside core_key_table(), so that no other file of a unity batch sees them.
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/config_detail.hpp"

namespace evb::config_detail::table_rows {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024, kTiB = kGiB * 1024;

inline KeySpec spec(std::string path, KeyType type, std::string def, std::string unit, double min,
                    double max, std::string doc, std::vector<std::string> choices = {}) {
  KeySpec k;
  k.path = std::move(path);
  k.type = type;
  k.default_value = std::move(def);
  k.unit = std::move(unit);
  k.min = min;
  k.max = max;
  k.choices = std::move(choices);
  k.doc = std::move(doc);
  return k;
}

template <class E>
KeySpec choice(std::string path, E def, std::string doc) {
  return spec(std::move(path), KeyType::choice, to_string(def), "", -kInf, kInf, std::move(doc),
              enum_choices<E>());
}

inline Value integer(int64_t i) {
  Value v;
  v.integer = i;
  return v;
}
inline Value real(double d) {
  Value v;
  v.real = d;
  return v;
}
inline Value bytes(uint64_t b) {
  Value v;
  v.bytes = b;
  return v;
}
inline Value text(std::string s) {
  Value v;
  v.text = std::move(s);
  return v;
}

using K = KeyType;

}  // namespace evb::config_detail::table_rows
