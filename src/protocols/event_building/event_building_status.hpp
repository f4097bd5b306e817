#pragma once
// The event builders' rules for what a run's summary says (pull, push,
// pull-noevm): whether every assigned event is accounted for, which RUs
// the run lost or masked, and results.status (docs/METRICS.md, "Exit
// status"). Rank 0's report of an event-building run
// (event_building_report.cpp, event_building_json.cpp) asks them; the
// micro-benchmarks have rules of their own.
#include <vector>

#include "protocols/common/failure_record.hpp"
#include "protocols/event_building/event_building_summary.hpp"

namespace evb {

// The integrity counters hold (integrity_counters_ok) and every assigned
// event is built, corrupt, out of sync or reported incomplete: none lost,
// none built twice, no RU ring overrun.
bool integrity_ok(const EventBuildingSummary& s);

// RUs the EVM reported lost (on_failure exclude) under on_ru_loss stop:
// each ends assignment, and the events missing its fragment stay
// incomplete. A masked RU (on_ru_loss mask) is not one: masked_sources().
// RUs are told from BUs by the record's role (FailureRecord::ru).
std::vector<FailureRecord> lost_data_sources(const EventBuildingSummary& s);
// RUs the EVM masked (on_ru_loss mask): the run went on without them.
std::vector<FailureRecord> masked_sources(const EventBuildingSummary& s);

// A data source was lost: an RU the EVM reported lost, or events some BU
// could not complete for lack of one. Not an integrity error (nothing was
// built short) but not a sound run either: the run stopped short of its
// duration or events, so its figures are not the configuration's. Exit
// status 3, results.status "data_source_lost". A masked RU (on_ru_loss
// mask, asked for) is a degraded success: status ok, exit 0, the last
// line says it was masked (protocols/event_building/report_masked.hpp). A lost BU
// whose events were all built elsewhere is recovery working, not counted;
// nor are late deliveries to an excluded BU (late_discarded, expected
// under exclude).
bool data_source_lost(const EventBuildingSummary& s);

// results.status: "integrity_error" wins over "data_source_lost", else "ok".
const char* event_building_status(const EventBuildingSummary& s);

}  // namespace evb
