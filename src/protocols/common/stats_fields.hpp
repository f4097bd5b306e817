#pragma once
// The field tables of the part of what a rank sends rank 0 at the end of a
// run that every protocol shares (RankStats and the records inside it),
// the failure record's, and the codecs of the values that are neither
// numbers, strings, lists nor tabled records. One line per field: a field
// missing here is not sent (field_table.hpp reads and writes them;
// tests/unit/protocols/stats_fields_test.cpp walks them). A protocol's own
// part has its own table in the protocol's folder and travels inside
// RankStats::own (encode_own_part, own_parts below).
#include <yaml-cpp/yaml.h>

#include <tuple>
#include <vector>

#include "core/histogram.hpp"
#include "core/host_load.hpp"
#include "core/lifecycle.hpp"
#include "protocols/common/failure_record.hpp"
#include "protocols/common/field_table.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

// A latency histogram as its compact text (Histogram::serialize).
inline void write_value(YAML::Emitter& out, const Histogram& h) {
  out << h.serialize();
}
inline void read_value(const YAML::Node& n, Histogram& h) {
  std::string text;
  read_value(n, text);
  try {
    h = Histogram::deserialize(text);
  } catch (const Error& e) {
    throw FieldShapeError{e.what()};
  }
}

// A host-load window as its flat list of numbers (to_numbers: empty when
// not measured).
inline void write_value(YAML::Emitter& out, const HostLoadWindow& w) {
  write_value(out, to_numbers(w));
}
inline void read_value(const YAML::Node& n, HostLoadWindow& w) {
  std::vector<double> numbers;
  read_value(n, numbers);
  w = from_numbers(numbers);
}

template <>
struct FieldTable<FailureRecord> {
  static constexpr const char* what = "failure record";
  static constexpr std::tuple fields{
      Field<&FailureRecord::unit>{"unit"},
      Field<&FailureRecord::bu>{"bu"},
      Field<&FailureRecord::ru>{"ru"},
      Field<&FailureRecord::rank>{"rank"},
      Field<&FailureRecord::cause>{"cause"},
      Field<&FailureRecord::action>{"action"},
      Field<&FailureRecord::lost_at_s>{"lost_at_s"},
      Field<&FailureRecord::detected_at_s>{"detected_at_s"},
      Field<&FailureRecord::reassigned>{"reassigned"},
      Field<&FailureRecord::recovered_at_s>{"recovered_at_s"},
  };
};

template <>
struct FieldTable<Lifecycle> {
  static constexpr const char* what = "lifecycle";
  static constexpr std::tuple fields{
      Field<&Lifecycle::join_s>{"join_s"},
      Field<&Lifecycle::connect_s>{"connect_s"},
      Field<&Lifecycle::setup_s>{"setup_s"},
      Field<&Lifecycle::teardown_s>{"teardown_s"},
  };
};

template <>
struct FieldTable<RankStats> {
  using S = RankStats;
  static constexpr const char* what = "rank statistics";
  static constexpr std::tuple fields{
      Field<&S::rank>{"rank"},
      Field<&S::host>{"host"},
      Field<&S::poll_mode>{"poll_mode"},
      Field<&S::cpus>{"cpus"},
      Field<&S::peak_rss_bytes>{"peak_rss_bytes"},
      Field<&S::anon_huge_bytes>{"anon_huge_bytes"},
      Field<&S::anon_rss_bytes>{"anon_rss_bytes"},
      Field<&S::lifecycle>{"lifecycle"},
      Field<&S::host_load>{"host_load"},
      Field<&S::error>{"error"},
      Field<&S::own>{"own"},
  };
};

// A protocol's own part as RankStats::own (one line of its table's text).
template <TabledRecord Own>
void encode_own_part(RankStats& stats, const Own& own) {
  stats.own = encode_record(own);
}

// Every rank's own part, in the order of `ranks`, read back as the
// protocol's record: evb::Error when one is not such a record. A rank
// whose part is empty (it sent none) reads as a record of defaults.
template <TabledRecord Own>
std::vector<Own> own_parts(const std::vector<RankStats>& ranks) {
  std::vector<Own> out;
  out.reserve(ranks.size());
  for (const RankStats& r : ranks) out.push_back(r.own.empty() ? Own{} : decode_record<Own>(r.own));
  return out;
}

}  // namespace evb
