// The calibration overlay's key table.
#include "apps/evbench/sim_overlay_keys.hpp"

namespace evb {

const std::vector<OverlayKey>& overlay_keys() {
  static const std::vector<OverlayKey> table = {
      {"calibration", "map", "the overlay (required)"},
      {"calibration.platform", "text", "the platform file it was fitted on"},
      {"calibration.model", "text", "the model it was fitted for (credit)"},
      {"calibration.link_efficiency", "0.01 .. 2",
       "required: host links' bandwidth (every link's when switch_link_efficiency is absent) "
       "is multiplied by it"},
      {"calibration.switch_link_efficiency", "0.01 .. 2",
       "links between two switches' bandwidth is multiplied by it (absent: link_efficiency)"},
      {"calibration.per_message_overhead_s", "0 .. 10",
       "seconds added to every message's delivery (default 0)"},
      {"calibration.ru_fragment_cpu_s", "0 .. 1",
       "seconds of its host's CPU each fragment an RU sends takes before it leaves (default 0; "
       "event builders only)"},
      {"calibration.bu_fragment_cpu_s", "0 .. 1",
       "seconds of its host's CPU each fragment a BU receives takes after it arrived (default "
       "0; event builders only)"},
      {"calibration.fragment_cpu_from", "text",
       "where the two came from: the measured run's results.cost.ru / .bu "
       "cpu_us_per_fragment, or why they are 0"},
      {"calibration.ru_fragment_cpu", "text",
       "an older overlay's: not fitted, with why (read as ru_fragment_cpu_s 0; with it, an "
       "error)"},
      {"calibration.bu_fragment_cpu", "text",
       "an older overlay's: not fitted, with why (read as bu_fragment_cpu_s 0; with it, an "
       "error)"},
      {"calibration.from", "map", "the run link_efficiency and the overhead were fitted to"},
      {"calibration.from.file", "text", "its results document"},
      {"calibration.from.config", "text", "its configuration in one line"},
      {"calibration.from.hosts", "text", "the hosts it ran on (results.host_load)"},
      {"calibration.from.git_sha", "text", "the commit of the evbench that measured it"},
      {"calibration.from.measured_per_node_gbps", "number", "results.bandwidth_gbps.per_node.avg"},
      {"calibration.from.measured_latency_p50_ms", "number", "results.latency_ms.p50"},
      {"calibration.from.simulated_uncalibrated_per_node_gbps", "number",
       "the run simulated with every link at 1"},
      {"calibration.from.simulated_calibrated_per_node_gbps", "number",
       "... with the fitted parameters"},
      {"calibration.from.iterations", "integer", "simulations the fit took"},
      {"calibration.switch_from", "map", "the run(s) switch_link_efficiency was fitted to"},
      {"calibration.switch_from.file", "text", "their results documents, comma-separated"},
      {"calibration.switch_from.config", "text", "their configurations in one line each"},
      {"calibration.switch_from.rates", "text",
       "which of their rates the switch links limit: `per node`, or a scan's `shifts 4-12`"},
      {"calibration.switch_from.measured_per_node_gbps", "number", "the mean of those rates"},
      {"calibration.switch_from.simulated_uncalibrated_per_node_gbps", "number",
       "... simulated with the switch links at 1"},
      {"calibration.switch_from.simulated_calibrated_per_node_gbps", "number",
       "... at the fitted value"},
      {"calibration.switch_from.iterations", "integer", "simulations the fit took"},
  };
  return table;
}

bool is_overlay_key(const std::string& path) {
  for (const auto& k : overlay_keys())
    if (k.path == path) return true;
  return false;
}

std::string overlay_reference_markdown() {
  std::string out = "| Key | Value | Meaning |\n|---|---|---|\n";
  for (const auto& k : overlay_keys())
    out += "| `" + k.path + "` | " + k.value + " | " + k.doc + " |\n";
  return out;
}

}  // namespace evb
