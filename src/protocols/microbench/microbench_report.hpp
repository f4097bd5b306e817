#pragma once
// The micro-benchmarks' share of rank 0's report (one-to-one, many-to-one,
// the gathers, alltoall): per step (a one-to-one shift scan's shifts) the
// receiving nodes' rates, the headline over the network shifts, the
// messages received, and a scan's predicted rates beside the measured ones
// (docs/METRICS.md, docs/MICROBENCH.md). It makes a MicrobenchSummary
// (microbench_summary.hpp) and reads every summary it is given as one.
#include <memory>

#include "protocols/api/protocol_report.hpp"

namespace evb {

class MicrobenchReport final : public ProtocolReport {
 public:
  std::unique_ptr<Summary> summarize(const Config& config, const Topology& topo,
                                     const std::vector<RankStats>& ranks,
                                     bool simulated) const override;
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

}  // namespace evb
