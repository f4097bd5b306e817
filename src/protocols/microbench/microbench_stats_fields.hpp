#pragma once
// The field table of the micro-benchmarks' own part of what a rank sends
// rank 0 (MicrobenchStats, microbench_stats.hpp). One line per field: a
// field missing here is not sent (protocols/common/field_table.hpp reads
// and writes them; tests/unit/protocols/stats_fields_test.cpp walks them).
// It travels as RankStats::own.
#include <tuple>

#include "protocols/common/stats_fields.hpp"
#include "protocols/microbench/microbench_stats.hpp"

namespace evb {

template <>
struct FieldTable<MicrobenchStats> {
  using S = MicrobenchStats;
  using I = IntegrityCounters;
  static constexpr const char* what = "micro-benchmark statistics";
  static constexpr std::tuple fields{
      Field<&S::bu>{"bu"},
      Field<&S::ru>{"ru"},
      Field<&S::events_built>{"events_built"},
      Field<&S::bytes_total>{"bytes_total"},
      Field<&S::network_bytes_total>{"network_bytes_total"},
      Field<&S::fragments_sent>{"fragments_sent"},
      Field<&S::bytes_sent>{"bytes_sent"},
      Field<&S::integrity, &I::corrupt>{"corrupt"},
      Field<&S::integrity, &I::verified>{"verified"},
      Field<&S::headers_checked>{"headers_checked"},
      Field<&S::headers_unchecked>{"headers_unchecked"},
      Field<&S::step_bytes>{"step_bytes"},
      Field<&S::step_messages>{"step_messages"},
      Field<&S::step_network_bytes>{"step_network_bytes"},
      Field<&S::step_window_s>{"step_window_s"},
  };
};

}  // namespace evb
