#pragma once
// What a protocol contributes to rank 0's report of a run. The app
// (apps/evbench/report.cpp) prints the run's header line, asks the
// protocol's report for everything between it and the verdict, prints the
// verdict ("# OK" / "# FAILED: ...") from the protocol's parts of it, and
// writes the JSON envelope around the protocol's results fields
// (docs/METRICS.md). EventBuildingReport (protocols/event_building) and
// MicrobenchReport (protocols/microbench) implement it.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/json_writer.hpp"
#include "core/topology.hpp"
#include "protocols/api/run_summary.hpp"
#include "protocols/common/rank_stats.hpp"

namespace evb {

struct ShiftPredictions;  // protocols/api/shift_predictions.hpp

// What the app adds to the table and the JSON beyond config and summary:
// a one-to-one shift scan's predicted rates (topology.platform; null when
// none), and whether the table has a row per node (not under --quiet, the
// JSON has them).
struct ReportContext {
  const ShiftPredictions* predicted = nullptr;
  bool per_node = true;
};

// The verdict's parts. The table's last line reads "OK" when both are
// empty, "OK, degraded: <degraded>" when only `degraded` is set, else
// "FAILED: <failures>", followed by "; <degraded_label>: <degraded>" when
// the run was degraded too (on_ru_loss mask: label "masked").
struct Verdict {
  std::string failures;
  std::string degraded;
  std::string degraded_label;
};

// One protocol family's share of the report; stateless, so one instance
// serves every run. The summary it makes is its family's own kind
// (EventBuildingSummary, MicrobenchSummary), which every other member reads
// back as that kind (summary_as): the app passes it on as a Summary.
class ProtocolReport {
 public:
  virtual ~ProtocolReport() = default;

  // Rank 0's figures from every rank's statistics (a lost rank sent none);
  // `simulated`: the ranks ran under `evbench sim`.
  virtual std::unique_ptr<Summary> summarize(const Config& config, const Topology& topo,
                                             const std::vector<RankStats>& ranks,
                                             bool simulated) const = 0;

  // The configuration as the run ended, which the table's header and the
  // JSON's config show: `config` with the run-time changes the summary
  // recorded applied (event builders), else `config` itself.
  virtual Config as_ended(const Config& config, const Summary&) const { return config; }

  // The header's first line names the run as "# evbench V: <title> over
  // <variant>, N nodes (<layout>)<shape>, P processes": title "pull" or
  // "micro-benchmark gather", shape ", barrel scheduling" or empty.
  virtual std::string title(const Config& config) const = 0;
  virtual std::string shape(const Config& config) const = 0;
  // The header's second line: the settings the figures depend on.
  virtual void print_settings(std::FILE* out, const Config& config, const Summary& s) const = 0;
  // The table between the header and the verdict line.
  virtual void print_body(std::FILE* out, const Config& config, const Summary& s,
                          const ReportContext& context) const = 0;

  virtual Verdict verdict(const Summary& s) const = 0;
  // What rank 0 writes on stderr about a failed run, one message per line
  // (the app puts "evbench: " before each).
  virtual std::vector<std::string> errors(const Summary& s) const = 0;
  // kExitOk, or kExitIntegrity (core/error.hpp; docs/METRICS.md, "Exit status").
  virtual int exit_code(const Summary& s) const = 0;
  // results.status: "ok", "integrity_error", or a protocol's own
  // ("data_source_lost": the event builders'), the same as the exit code.
  virtual const char* status(const Summary& s) const = 0;

  // results fields right after "status" (what the run lost, if anything).
  virtual void status_fields(JsonWriter& w, const Summary& s) const = 0;
  // results fields after the run's driver, variant, data path and poll mode:
  // the figures, integrity, faults, samples and the protocol's own.
  virtual void results_fields(JsonWriter& w, const Config& config, const Topology& topo,
                              const Summary& s, const ReportContext& context) const = 0;
};

}  // namespace evb
