#include "apps/evbench/report.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>

#include "apps/evbench/host_load_report.hpp"
#include "apps/evbench/lifecycle_report.hpp"
#include "apps/evbench/placement_report.hpp"
#include "apps/evbench/topology_ring.hpp"
#include "apps/evbench/versions.hpp"
#include "core/clock.hpp"
#include "core/config_loader.hpp"
#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "protocols/api/shift_predictions.hpp"
#include "topo/platform_loader.hpp"

namespace evb {
namespace {

const char* const kFluidNote =
    "simulated with SimGrid's fluid network model: no credit flow control and no head-of-line "
    "blocking, so figures with many simultaneous flows per link (random order, all-to-all) are "
    "upper bounds";
const char* const kCreditNote =
    "simulated with evbench's credit model: lossless links with link-level credits, finite "
    "switch buffers and head-of-line blocking (docs/SCALE.md); hosts cost no CPU time and "
    "payload bytes are counted, not moved";

const char* const kCreditCpuNote =
    "simulated with evbench's credit model: lossless links with link-level credits, finite "
    "switch buffers and head-of-line blocking (docs/SCALE.md); hosts cost no CPU time but the "
    "calibration's CPU per fragment at the RU and BU, and payload bytes are counted, not moved";

const char* simulation_note(const RunOptions& o) {
  if (o.simulation_model != "credit") return kFluidNote;
  return o.fragment_cpu_charged ? kCreditCpuNote : kCreditNote;
}

// A one-to-one shift scan's predicted rates from topology.platform, over the
// hosts the nodes ran on (none for other runs).
std::optional<ShiftPredictions> predict(const Config& c, int steps) {
  if (!predicts_shift_scan(c, steps) || c.nodes < 2) return std::nullopt;
  ShiftPredictions p;
  p.platform = topo::load_platform(c.topology.platform);
  p.shifts = topo::predict_shifts(p.platform, node_hosts(p.platform, c));
  return p;
}

// The table's last line: "OK", "OK, degraded: ..." (a run that went on
// without some units: on_ru_loss mask), or "FAILED: " what failed.
std::string footer(const Verdict& v) {
  if (!v.failures.empty())
    return "FAILED: " + v.failures +
           (v.degraded.empty() ? "" : "; " + v.degraded_label + ": " + v.degraded);
  return v.degraded.empty() ? "OK" : "OK, degraded: " + v.degraded;
}

// The result table on stdout: the run's header, the protocol's lines, the
// verdict. `context.per_node` false (--quiet): no row per node (the JSON
// has them), the rest stays.
void print_table(const ProtocolReport& report, const Config& c, const Topology& t, const Summary& s,
                 const std::string& variant, const std::string& driver_settings,
                 const ReportContext& context, const std::string& placement,
                 const LifecycleSummary& lifecycle, const std::vector<HostLoad>& load,
                 const std::vector<BackgroundResult>& background) {
  std::printf("# evbench %s: %s over %s, %d nodes (%s)%s, %d processes\n",
              evbench_version().c_str(), report.title(c).c_str(), variant.c_str(), c.nodes,
              to_string(c.layout), report.shape(c).c_str(), t.processes());
  report.print_settings(stdout, c, s);
  if (!driver_settings.empty()) std::printf("# driver applied: %s\n", driver_settings.c_str());
  std::printf("# placement: %s\n", placement.c_str());
  if (const std::string line = lifecycle_line(lifecycle); !line.empty())
    std::printf("# %s\n", line.c_str());
  if (const std::string line = host_load_line(load); !line.empty())
    std::printf("# %s\n", line.c_str());
  report.print_body(stdout, c, s, context);
  print_background_lines(stdout, background);
  std::printf("# %s\n", footer(report.verdict(s)).c_str());
  std::fflush(stdout);
}

// The variant that ran, the same in the table and the JSON: what the driver
// said after connecting (with its data path), else its variant, else the
// configured driver.
std::string variant_name(const Config& c, const DriverProbe& probe) {
  if (!probe.run_variant.empty()) return probe.run_variant;
  return probe.variant.empty() ? c.driver : probe.variant;
}

// What a simulated run (`evbench sim`) adds to results: that it is one, the
// simulated time (the SMPI build's clock is the simulated one, starting at 0),
// the wall time the simulation took, and the fluid model's caveat.
void simulation_fields(JsonWriter& w, const RunOptions& o) {
  w.value("simulated", true);
  w.value("simulated_platform", o.simulated_platform);
  w.value("simulated_time_s", ns_to_s(now_ns()));
  w.value("wall_time_s",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - o.wall_start).count());
  w.value("simulation_model", o.simulation_model);
  w.value("simulation_note", simulation_note(o));
  if (o.calibration_json) {
    w.begin_object("calibration");
    o.calibration_json(w);
    w.end_object();
  }
}

// The JSON document: what ran (argv, config, versions, topology) and its
// results, the run's facts around the protocol's fields.
std::string results_json(const ProtocolFactory& protocol, const Config& c, const Topology& t,
                         const Summary& s, const RunOptions& o, const DriverProbe& probe,
                         const ReportContext& context, const std::string& placement,
                         const LifecycleSummary& lifecycle, const std::vector<HostLoad>& load,
                         const std::vector<BackgroundResult>& background) {
  const ProtocolReport& report = *protocol.report;
  JsonWriter w;
  w.begin_object();
  w.value("schema_version", 1);
  w.value("tool", "evbench");
  w.begin_array("argv");
  for (const auto& a : o.argv) w.value("", a);
  w.end_array();
  w.raw("config", to_json(c));
  w.begin_object("versions");
  w.value("evbench", evbench_version());
  w.value("git_sha", evbench_git_sha());
  w.value("compiler", compiler_version());
  w.begin_object("libraries");
  w.value("yaml-cpp", yaml_cpp_version());
  w.value(c.driver, probe.library_version);
  w.value("kernel", kernel_version());
  w.end_object();
  w.end_object();
  w.begin_object("topology");
  w.value("nodes", t.nodes);
  w.value("processes", t.processes());
  w.value("evm_rank", t.evm_rank);
  w.end_object();
  w.begin_object("results");
  w.value("status", report.status(s));
  // The protocol's trait, for tools that must not guess from its name.
  w.value("builds_events", protocol.builds_events);
  report.status_fields(w, s);
  if (!o.simulated_platform.empty()) simulation_fields(w, o);
  if (o.network_json) {
    w.begin_object("network");
    o.network_json(w);
    w.end_object();
  }
  w.value("driver", probe.variant.empty() ? c.driver : probe.variant);
  w.value("variant", variant_name(c, probe));
  if (!probe.run_settings.empty()) w.value("driver_settings", probe.run_settings);
  w.value("data_path", to_string(c.data_path));
  w.value("poll_mode", s.poll_mode);
  write_placement(w, c, s, placement);
  write_lifecycle(w, lifecycle);
  write_host_load(w, load);
  report.results_fields(w, c, t, s, context);
  if (!c.background.empty()) write_background_json(w, background);
  w.end_object();
  w.end_object();
  return w.str() + "\n";
}

}  // namespace

int report_run(const ProtocolFactory& protocol, const Config& initial, const Topology& t,
               const std::vector<RankStats>& ranks, const RunOptions& o, const DriverProbe& probe,
               const std::vector<BackgroundResult>& background) {
  const ProtocolReport& report = *protocol.report;
  // The protocol's own kind of summary: only its report reads past Summary.
  const std::unique_ptr<Summary> summary =
      report.summarize(initial, t, ranks, !o.simulated_platform.empty());
  const Summary& s = *summary;
  // A steered run is shown with the knobs it ended with; the ones it began
  // with are in the summary's phases and results.control_initial.
  const Config c = report.as_ended(initial, s);
  const std::optional<ShiftPredictions> predicted = predict(c, protocol.steps(c));
  ReportContext context;
  context.predicted = predicted ? &*predicted : nullptr;
  context.per_node = !o.quiet;
  const std::string placement = placement_line(c, s, o);
  const LifecycleSummary lifecycle = summarize_lifecycle(ranks);
  const std::vector<HostLoad> load = summarize_host_load(ranks);
  print_table(report, c, t, s, variant_name(c, probe), probe.run_settings, context, placement,
              lifecycle, load, background);
  if (!o.simulated_platform.empty()) {
    std::printf(
        "# simulated on %s: %.3f s simulated in %.1f s wall time\n# note: %s\n",
        o.simulated_platform.c_str(), ns_to_s(now_ns()),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - o.wall_start).count(),
        simulation_note(o));
    if (o.network_text) std::fputs(o.network_text().c_str(), stdout);
    std::fflush(stdout);
  }
  if (!o.json_path.empty()) {
    const std::string tmp = o.json_path + ".tmp";
    {
      std::ofstream out(tmp);
      out << results_json(protocol, c, t, s, o, probe, context, placement, lifecycle, load,
                          background);
      if (!out) throw Error("cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), o.json_path.c_str()) != 0)
      throw Error("cannot rename " + tmp + " to " + o.json_path);
  }
  for (const std::string& line : report.errors(s))
    std::fprintf(stderr, "evbench: %s\n", line.c_str());
  return report.exit_code(s);
}

}  // namespace evb
