#pragma once
// Calibrating a simulation to a measured run (`evbench sim --calibrate`):
// the parameters, how they are fitted, and the overlay file that records
// them beside their origin.
//
// What the credit model can use is the links' effective rate: the share of
// a link's nominal bandwidth the hosts' stack (TCP, its copies, the
// kernel's queues) actually moves. The fit scales every link of the
// platform by one factor, `link_efficiency`, until the simulated per-node
// rate of the measured run's own configuration matches the measured one.
// One measured rate fixes one parameter: the per-message overhead and the
// per-fragment CPU cost at the RU and BU cannot be told apart from it, and
// the credit model charges hosts no CPU time, so the overlay records them
// as not fitted, with why.
#include <functional>
#include <string>

#include "core/json_writer.hpp"
#include "topo/platform.hpp"

namespace evb {

// The calibrated parameters and where they came from: an overlay on the
// platform file, written by --calibrate and read back by --calibration.
class Calibration {
 public:
  double link_efficiency = 1;  // every link's bandwidth is multiplied by it
  std::string platform;        // the platform file it was fitted on
  std::string model = "credit";
  // The measured run: its file, its configuration in one line, the hosts it
  // ran on and the commit of the evbench that measured it.
  std::string from_file, from_config, from_hosts, from_git_sha;
  double measured_gbps = 0;      // per node, results.bandwidth_gbps.per_node.avg
  double uncalibrated_gbps = 0;  // the same run simulated at link efficiency 1
  double calibrated_gbps = 0;    // ... at the fitted efficiency
  int iterations = 0;
  std::string overlay;  // the overlay file this was read from or written to

  // The overlay file's text (YAML).
  std::string overlay_yaml() const;
  // results.calibration's fields.
  void write_json(JsonWriter& w) const;
  // One `#` line for the text report.
  std::string text_line() const;
};

// Reads an overlay file written by --calibrate; ConfigError naming the
// file and key otherwise.
Calibration load_calibration(const std::string& path);
Calibration parse_calibration(const std::string& text, const std::string& name);

// Multiplies every link's bandwidth by the calibration's link efficiency.
void apply_calibration(const Calibration& c, topo::Platform& platform);

// The fit: `simulate(e)` is the simulated per-node rate with every link at
// e times its bandwidth. Starting at 1, e is rescaled by measured /
// simulated until the two agree within `tolerance` (relative) or after
// `max_iterations` simulations. Returns the efficiency; `iterations`,
// `first` (the rate at e = 1) and `last` (at the returned e) are set.
struct FitResult {
  double efficiency = 1;
  double first = 0;
  double last = 0;
  int iterations = 0;
};
FitResult fit_link_efficiency(double measured, const std::function<double(double)>& simulate,
                              double tolerance = 0.01, int max_iterations = 6);

}  // namespace evb
