#pragma once
// Records written and read by field name: a struct names its fields once,
// in a table of (name, member) entries (FieldTable<T> below), and
// write_value / read_value turn it into a YAML flow map and back. What a
// rank sends rank 0 at the end of a run (RankStats, its FailureRecords) is
// written so (stats_fields.hpp): adding a field is one line in its table.
//
// The text arrives from peers over sockets, so reading trusts nothing: a
// record must be a map, every key one of its table's (once), every field of
// the table present, each value of its field's shape (a number, a list of
// the length it must have, a record); anything else throws evb::Error
// naming the record and the field.
#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"

namespace evb {

// One entry of a field table: the key it is written under and the path of
// members that reach it from the record (`&RankStats::integrity,
// &IntegrityCounters::corrupt` for a member of a member).
template <auto... Path>
struct Field {
  const char* name;
  template <class Record>
  static constexpr auto& of(Record& r) {
    return (r.*....*Path);
  }
};

// Specialised once per record type, next to nothing but its table:
//   static constexpr const char* what = "failure record";
//   static constexpr std::tuple fields{Field<&FailureRecord::unit>{"unit"}, ...};
template <class T>
struct FieldTable;

template <class T>
concept TabledRecord = requires {
  FieldTable<T>::what;
  FieldTable<T>::fields;
};

// Thrown inside a record's reading; the record adds its name and the field's.
struct FieldShapeError {
  std::string what;
};

// Calls fn(field) for each entry of T's table, in order.
template <TabledRecord T, class Fn>
constexpr void for_each_field(Fn&& fn) {
  std::apply([&](const auto&... f) { (fn(f), ...); }, FieldTable<T>::fields);
}

template <TabledRecord T>
constexpr size_t field_count() {
  return std::tuple_size_v<std::remove_cvref_t<decltype(FieldTable<T>::fields)>>;
}

// Writing: a value as YAML (records as flow maps in table order).
inline void write_value(YAML::Emitter& out, bool v) {
  out << v;
}
inline void write_value(YAML::Emitter& out, int v) {
  out << v;
}
inline void write_value(YAML::Emitter& out, int64_t v) {
  out << v;
}
inline void write_value(YAML::Emitter& out, uint64_t v) {
  out << v;
}
inline void write_value(YAML::Emitter& out, double v) {
  out << v;
}
inline void write_value(YAML::Emitter& out, const std::string& v) {
  out << v;
}
template <class T>
void write_value(YAML::Emitter& out, const std::vector<T>& v);
template <class T, size_t N>
void write_value(YAML::Emitter& out, const std::array<T, N>& v);
template <TabledRecord T>
void write_value(YAML::Emitter& out, const T& record);

template <class Seq>
void write_sequence(YAML::Emitter& out, const Seq& v) {
  out << YAML::Flow << YAML::BeginSeq;
  for (const auto& x : v) write_value(out, x);
  out << YAML::EndSeq;
}
template <class T>
void write_value(YAML::Emitter& out, const std::vector<T>& v) {
  write_sequence(out, v);
}
template <class T, size_t N>
void write_value(YAML::Emitter& out, const std::array<T, N>& v) {
  write_sequence(out, v);
}
template <TabledRecord T>
void write_value(YAML::Emitter& out, const T& record) {
  out << YAML::Flow << YAML::BeginMap;
  for_each_field<T>([&](const auto& f) {
    out << YAML::Key << f.name << YAML::Value;
    write_value(out, f.of(record));
  });
  out << YAML::EndMap;
}

// Reading: a node into a value of the same shape, or FieldShapeError.
template <class T>
void read_scalar(const YAML::Node& n, T& v, const char* kind) {
  if (!n.IsScalar()) throw FieldShapeError{std::string("not ") + kind};
  try {
    v = n.as<T>();
  } catch (const YAML::Exception&) {
    throw FieldShapeError{"'" + n.Scalar() + "' is not " + kind};
  }
}
inline void read_value(const YAML::Node& n, bool& v) {
  read_scalar(n, v, "true or false");
}
inline void read_value(const YAML::Node& n, int& v) {
  read_scalar(n, v, "an integer");
}
inline void read_value(const YAML::Node& n, int64_t& v) {
  read_scalar(n, v, "an integer");
}
inline void read_value(const YAML::Node& n, uint64_t& v) {
  read_scalar(n, v, "a count");
  // yaml-cpp reads "-1" as a huge unsigned number on some versions.
  if (!n.Scalar().empty() && n.Scalar()[0] == '-')
    throw FieldShapeError{"'" + n.Scalar() + "' is not a count"};
}
inline void read_value(const YAML::Node& n, double& v) {
  read_scalar(n, v, "a number");
}
inline void read_value(const YAML::Node& n, std::string& v) {
  read_scalar(n, v, "a string");
}
template <class T>
void read_value(const YAML::Node& n, std::vector<T>& v);
template <class T, size_t N>
void read_value(const YAML::Node& n, std::array<T, N>& v);
template <TabledRecord T>
void read_value(const YAML::Node& n, T& record);

template <class T>
void read_value(const YAML::Node& n, std::vector<T>& v) {
  if (!n.IsSequence()) throw FieldShapeError{"not a list"};
  v.assign(n.size(), T{});
  for (size_t k = 0; k < v.size(); ++k) read_value(n[k], v[k]);
}
template <class T, size_t N>
void read_value(const YAML::Node& n, std::array<T, N>& v) {
  if (!n.IsSequence() || n.size() != N) throw FieldShapeError{"not a list of " + std::to_string(N)};
  for (size_t k = 0; k < N; ++k) read_value(n[k], v[k]);
}

// Reads `value` into the field of T's table named `key`; false when no
// field has that name.
template <TabledRecord T>
bool read_field(T& record, const std::string& key, const YAML::Node& value,
                std::array<bool, field_count<T>()>& seen) {
  size_t k = 0;
  bool found = false;
  for_each_field<T>([&](const auto& f) {
    if (!found && key == f.name) {
      found = true;
      if (seen[k]) throw FieldShapeError{"field '" + key + "' given twice"};
      seen[k] = true;
      try {
        read_value(value, f.of(record));
      } catch (const FieldShapeError& e) {
        throw FieldShapeError{"field '" + key + "': " + e.what};
      }
    }
    ++k;
  });
  return found;
}

// The field (of T's table) first missing from `seen`, or nullptr.
template <TabledRecord T>
const char* first_missing(const std::array<bool, field_count<T>()>& seen) {
  const char* missing = nullptr;
  size_t k = 0;
  for_each_field<T>([&](const auto& f) {
    if (!missing && !seen[k]) missing = f.name;
    ++k;
  });
  return missing;
}

template <TabledRecord T>
void read_value(const YAML::Node& n, T& record) {
  const std::string what = FieldTable<T>::what;
  if (!n.IsMap()) throw FieldShapeError{"a " + what + " that is not a map"};
  std::array<bool, field_count<T>()> seen{};
  for (const auto& kv : n) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("?");
    try {
      if (!read_field(record, key, kv.second, seen))
        throw FieldShapeError{"unknown field '" + key + "'"};
    } catch (const FieldShapeError& e) {
      throw FieldShapeError{what + ": " + e.what};
    }
  }
  if (const char* missing = first_missing<T>(seen))
    throw FieldShapeError{what + ": missing field '" + missing + "'"};
}

// A record as one line of YAML text, and back (evb::Error when the text
// is not a record of T's shape).
template <TabledRecord T>
std::string encode_record(const T& record) {
  YAML::Emitter out;
  write_value(out, record);
  return out.c_str();
}
inline YAML::Node load_record_text(const char* what, const std::string& text) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(std::string(what) + ": not YAML (" + e.msg + ")");
  }
}
template <TabledRecord T>
T record_from_node(const YAML::Node& n) {
  T record;
  try {
    read_value(n, record);
  } catch (const FieldShapeError& e) {
    throw Error(e.what);
  }
  return record;
}
template <TabledRecord T>
T decode_record(const std::string& text) {
  return record_from_node<T>(load_record_text(FieldTable<T>::what, text));
}

}  // namespace evb
