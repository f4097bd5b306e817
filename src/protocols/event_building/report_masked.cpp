#include "protocols/event_building/report_masked.hpp"

#include <cstdio>

#include "protocols/event_building/event_building_status.hpp"

namespace evb {

AggregateRecovery recovery_after(const EventBuildingSummary& s, double fault_s, double since_s) {
  int masked = 0;
  for (const FailureRecord& f : masked_sources(s))
    if (f.lost_at_s <= since_s + 1e-9) ++masked;
  if (masked == 0 || s.nodes <= masked) return aggregate_recovery(s, fault_s, since_s);
  AggregateRecovery r =
      aggregate_recovery(s, fault_s, since_s, static_cast<double>(s.nodes - masked) / s.nodes);
  r.rus_left = s.nodes - masked;
  r.rus = s.nodes;
  return r;
}

uint64_t built_without(const EventBuildingSummary& s, int ru) {
  return ru >= 0 && static_cast<size_t>(ru) < s.masked_per_ru.size() ? s.masked_per_ru[ru] : 0;
}

uint64_t built_without(const EventBuildingSummary& s, const FailureRecord& f) {
  return built_without(s, f.ru);
}

std::string masked_line(const EventBuildingSummary& s, const FailureRecord& f) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "; %llu events built without it",
                static_cast<unsigned long long>(built_without(s, f)));
  return buf;
}

std::string masked_summary(const EventBuildingSummary& s) {
  std::string out;
  char buf[160];
  for (const FailureRecord& f : masked_sources(s)) {
    std::snprintf(buf, sizeof buf, "%s (rank %d) masked at %.2f s, %llu events built without it",
                  f.unit.c_str(), f.rank, f.detected_at_s,
                  static_cast<unsigned long long>(built_without(s, f)));
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out;
}

void masked_events_json(JsonWriter& w, const EventBuildingSummary& s) {
  w.begin_object("masked_events");
  w.value("count", s.masked_events);
  w.begin_array("sources");
  for (const FailureRecord& f : masked_sources(s)) {
    w.begin_object();
    w.value("ru", f.ru);
    w.value("rank", f.rank);
    w.value("lost_at_s", f.lost_at_s);
    w.value("masked_at_s", f.detected_at_s);
    w.value("events_built_without", built_without(s, f));
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace evb
