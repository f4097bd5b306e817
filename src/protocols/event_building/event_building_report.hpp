#pragma once
// The event builders' share of rank 0's report (pull, push, pull-noevm):
// events built, assigned and accounted for, BU rates and latency, the
// failures the EVM saw and how the aggregate recovered, masked RUs, and the
// verdict's integrity and data-source parts (docs/METRICS.md). It makes an
// EventBuildingSummary (event_building_summary.hpp/.cpp) and reads every
// summary it is given as one; the table and verdict are in
// event_building_report.cpp, the results fields in event_building_json.cpp.
#include <memory>

#include "protocols/api/protocol_report.hpp"
#include "protocols/api/report_parts.hpp"
#include "protocols/event_building/event_building_summary.hpp"

namespace evb {

class EventBuildingReport final : public ProtocolReport {
 public:
  std::unique_ptr<Summary> summarize(const Config& config, const Topology& topo,
                                     const std::vector<RankStats>& ranks,
                                     bool simulated) const override;
  Config as_ended(const Config& config, const Summary& s) const override;
  std::string title(const Config& config) const override;
  std::string shape(const Config& config) const override;
  void print_settings(std::FILE* out, const Config& config, const Summary& s) const override;
  void print_body(std::FILE* out, const Config& config, const Summary& s,
                  const ReportContext& context) const override;
  Verdict verdict(const Summary& s) const override;
  std::vector<std::string> errors(const Summary& s) const override;
  int exit_code(const Summary& s) const override;
  const char* status(const Summary& s) const override;
  void status_fields(JsonWriter& w, const Summary& s) const override;
  void results_fields(JsonWriter& w, const Config& config, const Topology& topo, const Summary& s,
                      const ReportContext& context) const override;
};

// The summary's figures as the shared report parts take them: the events
// it lost (stderr, results.integrity), filter units and bounds.
EventLosses event_losses(const EventBuildingSummary& s);
EventBounds event_bounds(const EventBuildingSummary& s);

// What was lost: "RU 3 (rank 3) at 2.00 s, 12 events incomplete, assignment
// stopped at 2.01 s" (empty when no data source was lost).
std::string data_source_loss(const EventBuildingSummary& s);

}  // namespace evb
