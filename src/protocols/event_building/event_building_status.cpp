#include "protocols/event_building/event_building_status.hpp"

#include "protocols/api/report_parts.hpp"

namespace evb {
namespace {

// The RUs among the EVM's failure records whose action is (`masked`) or
// is not (!`masked`) "masked".
std::vector<FailureRecord> rus(const EventBuildingSummary& s, bool masked) {
  std::vector<FailureRecord> out;
  for (const FailureRecord& f : s.failures)
    if (f.ru >= 0 && (f.action == "masked") == masked) out.push_back(f);
  return out;
}

}  // namespace

bool integrity_ok(const EventBuildingSummary& s) {
  return integrity_counters_ok(s.integrity) && s.incomplete == 0 && s.lost == 0 &&
         s.duplicate_events == 0 && s.ring_overrun == 0;
}

std::vector<FailureRecord> lost_data_sources(const EventBuildingSummary& s) {
  return rus(s, false);
}

std::vector<FailureRecord> masked_sources(const EventBuildingSummary& s) {
  return rus(s, true);
}

bool data_source_lost(const EventBuildingSummary& s) {
  return s.incomplete_lost_peer > 0 || !lost_data_sources(s).empty();
}

const char* event_building_status(const EventBuildingSummary& s) {
  return !integrity_ok(s) ? "integrity_error" : data_source_lost(s) ? "data_source_lost" : "ok";
}

}  // namespace evb
