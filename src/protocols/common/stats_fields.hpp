#pragma once
// The field tables of what a rank sends rank 0 at the end of a run
// (RankStats and the records inside it) and the codecs of the values that
// are neither numbers, strings, lists nor tabled records. One line per
// field: a field missing here is not sent (field_table.hpp reads and
// writes them; tests/unit/protocols/stats_fields_test.cpp walks them).
#include <yaml-cpp/yaml.h>

#include <tuple>

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
struct FieldTable<ControlRecord> {
  static constexpr const char* what = "control record";
  static constexpr std::tuple fields{
      Field<&ControlRecord::t_s>{"t_s"},       Field<&ControlRecord::key>{"key"},
      Field<&ControlRecord::value>{"value"},   Field<&ControlRecord::from_event>{"from_event"},
      Field<&ControlRecord::source>{"source"},
  };
};

template <>
struct FieldTable<PhaseBook> {
  static constexpr const char* what = "phase";
  static constexpr std::tuple fields{
      Field<&PhaseBook::from_s>{"from_s"},
      Field<&PhaseBook::first_control>{"first_control"},
      Field<&PhaseBook::events>{"events"},
      Field<&PhaseBook::bytes>{"bytes"},
      Field<&PhaseBook::window_events>{"window_events"},
      Field<&PhaseBook::window_bytes>{"window_bytes"},
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
  using I = IntegrityCounters;
  static constexpr const char* what = "rank statistics";
  static constexpr std::tuple fields{
      Field<&S::rank>{"rank"},
      Field<&S::host>{"host"},
      Field<&S::poll_mode>{"poll_mode"},
      Field<&S::cpus>{"cpus"},
      Field<&S::bu>{"bu"},
      Field<&S::events_built>{"events_built"},
      Field<&S::events_started>{"events_started"},
      Field<&S::events_in_window>{"events_in_window"},
      Field<&S::bytes_in_window>{"bytes_in_window"},
      Field<&S::bytes_total>{"bytes_total"},
      Field<&S::network_bytes_in_window>{"network_bytes_in_window"},
      Field<&S::network_bytes_total>{"network_bytes_total"},
      Field<&S::arrival_bytes_in_window>{"arrival_bytes_in_window"},
      Field<&S::arrival_bytes_total>{"arrival_bytes_total"},
      Field<&S::last_completion_ns>{"last_completion_ns"},
      Field<&S::sample_bytes>{"sample_bytes"},
      Field<&S::sample_events>{"sample_events"},
      Field<&S::evm_sample_bytes>{"evm_sample_bytes"},
      Field<&S::evm_sample_events>{"evm_sample_events"},
      Field<&S::latency>{"latency"},
      Field<&S::integrity, &I::corrupt>{"corrupt"},
      Field<&S::integrity, &I::duplicate>{"duplicate"},
      Field<&S::integrity, &I::incomplete>{"incomplete"},
      Field<&S::integrity, &I::verified>{"verified"},
      Field<&S::integrity, &I::bad_events>{"bad_events"},
      Field<&S::integrity, &I::out_of_sync>{"out_of_sync"},
      Field<&S::integrity, &I::out_of_sync_events>{"out_of_sync_events"},
      Field<&S::integrity, &I::injected>{"injected"},
      Field<&S::integrity, &I::injected_detected>{"injected_detected"},
      Field<&S::integrity, &I::injected_in>{"injected_in"},
      Field<&S::integrity, &I::detected_in>{"detected_in"},
      Field<&S::integrity_problem>{"integrity_problem"},
      Field<&S::fu_processed>{"fu_processed"},
      Field<&S::fu_accepted>{"fu_accepted"},
      Field<&S::max_requests_in_flight>{"max_requests_in_flight"},
      Field<&S::max_events_in_flight>{"max_events_in_flight"},
      Field<&S::fragments_in_place>{"fragments_in_place"},
      Field<&S::ru>{"ru"},
      Field<&S::fragments_sent>{"fragments_sent"},
      Field<&S::bytes_sent>{"bytes_sent"},
      Field<&S::ring_overrun>{"ring_overrun"},
      Field<&S::max_events_held>{"max_events_held"},
      Field<&S::evm>{"evm"},
      Field<&S::events_assigned>{"events_assigned"},
      Field<&S::max_outstanding_per_bu>{"max_outstanding_per_bu"},
      Field<&S::completed_per_bu>{"completed_per_bu"},
      Field<&S::excluded_bus>{"excluded_bus"},
      Field<&S::failures>{"failures"},
      Field<&S::rate_bins>{"rate_bins"},
      Field<&S::rate_bin_s>{"rate_bin_s"},
      Field<&S::assign_stopped_at_s>{"assign_stopped_at_s"},
      Field<&S::control>{"control"},
      Field<&S::phases>{"phases"},
      Field<&S::assignments_held_back>{"assignments_held_back"},
      Field<&S::late_discarded>{"late_discarded"},
      Field<&S::incomplete_lost_peer>{"incomplete_lost_peer"},
      Field<&S::masked_events>{"masked_events"},
      Field<&S::masked_per_ru>{"masked_per_ru"},
      Field<&S::evm_masked_events>{"evm_masked_events"},
      Field<&S::step_bytes>{"step_bytes"},
      Field<&S::step_messages>{"step_messages"},
      Field<&S::step_network_bytes>{"step_network_bytes"},
      Field<&S::step_window_s>{"step_window_s"},
      // commands
      Field<&S::commands>{"commands"},
      // EVM cost
      Field<&S::evm_cpu_ns>{"evm_cpu_ns"},
      Field<&S::evm_cpu_stretches>{"evm_cpu_stretches"},
      Field<&S::evm_clock_overhead_ns>{"evm_clock_overhead_ns"},
      Field<&S::evm_loop_cpu_ns>{"evm_loop_cpu_ns"},
      Field<&S::peak_rss_bytes>{"peak_rss_bytes"},
      Field<&S::anon_huge_bytes>{"anon_huge_bytes"},
      Field<&S::anon_rss_bytes>{"anon_rss_bytes"},
      Field<&S::lifecycle>{"lifecycle"},
      Field<&S::host_load>{"host_load"},
      Field<&S::error>{"error"},
  };
};

}  // namespace evb
