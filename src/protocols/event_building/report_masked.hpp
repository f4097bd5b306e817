#pragma once
// What a run says about the RUs it masked (on_ru_loss mask): the recovery
// of the aggregate measured against the share of the pre-fault level the
// RUs left can give, results.integrity.masked_events, and the text of the
// summary's lines and last line (docs/METRICS.md, "Faults").
#include <cstdint>
#include <string>

#include "core/json_writer.hpp"
#include "protocols/event_building/event_building_summary.hpp"
#include "protocols/event_building/recovery.hpp"

namespace evb {

// aggregate_recovery() for a fault that began at `fault_s` and was over at
// `since_s`, against (N - k) / N of the pre-fault level when k of the N RUs
// had been masked by `since_s` (the whole level when none).
AggregateRecovery recovery_after(const EventBuildingSummary& s, double fault_s, double since_s);

// Events the BUs still in the run built without RU `ru`'s fragment, or
// without the RU of failure record `f` ("RU 2").
uint64_t built_without(const EventBuildingSummary& s, int ru);
uint64_t built_without(const EventBuildingSummary& s, const FailureRecord& f);

// "; 8123 events built without it" + the recovery, for a masked RU's line.
std::string masked_line(const EventBuildingSummary& s, const FailureRecord& f);

// "RU 2 (rank 2) masked at 2.00 s, 8123 events built without it" for each
// masked RU, joined by "; " (empty when none): the degraded run's last line.
std::string masked_summary(const EventBuildingSummary& s);

// results.integrity.masked_events: {"count": N, "sources": [{"ru", "rank",
// "masked_at_s", "events_built_without"}]}.
void masked_events_json(JsonWriter& w, const EventBuildingSummary& s);

}  // namespace evb
