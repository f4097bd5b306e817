#pragma once
// The field table of the event builders' own part of what a rank sends
// rank 0 (EventBuildingStats, event_building_stats.hpp) and of the records
// only it carries (the EVM's run-time changes and phase books). One line
// per field: a field missing here is not sent (protocols/common/
// field_table.hpp reads and writes them; tests/unit/protocols/
// stats_fields_test.cpp walks them). It travels as RankStats::own.
#include <tuple>

#include "protocols/common/stats_fields.hpp"
#include "protocols/event_building/event_building_stats.hpp"

namespace evb {

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
struct FieldTable<EventBuildingStats> {
  using S = EventBuildingStats;
  using I = IntegrityCounters;
  static constexpr const char* what = "event-building statistics";
  static constexpr std::tuple fields{
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
      Field<&S::fragments_received>{"fragments_received"},
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
      Field<&S::commands>{"commands"},
      Field<&S::evm_cpu_ns>{"evm_cpu_ns"},
      Field<&S::evm_cpu_stretches>{"evm_cpu_stretches"},
      Field<&S::evm_clock_overhead_ns>{"evm_clock_overhead_ns"},
      Field<&S::evm_loop_cpu_ns>{"evm_loop_cpu_ns"},
      Field<&S::cpu_window_s>{"cpu_window_s"},
      Field<&S::cpu_user_s>{"cpu_user_s"},
      Field<&S::cpu_system_s>{"cpu_system_s"},
      Field<&S::cpu_fragments_sent>{"cpu_fragments_sent"},
      Field<&S::cpu_fragments_received>{"cpu_fragments_received"},
  };
};

}  // namespace evb
