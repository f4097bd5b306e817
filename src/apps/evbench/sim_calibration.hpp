#pragma once
// Calibrating a simulation to a measured run (`evbench sim --calibrate`):
// the parameters, how they are fitted, and the overlay file that records
// them beside their origin.
//
// What the credit model can use: the links' effective rate, the share of a
// link's nominal bandwidth the hosts' stack (TCP, its copies, the kernel's
// queues) actually moves (`link_efficiency`, every link scaled by it), and
// a per-message overhead, the time a host's stack adds to every message
// without holding a link (`per_message_overhead_s`, sim/exec/
// credit_network_adapter.hpp). The measured run's own configuration is
// simulated on the platform and the two are fitted to its per-node rate
// and its median event latency (fit_calibration). The per-fragment CPU cost
// at the RU and BU is the measured run's own (results.cost.ru / .bu
// cpu_us_per_fragment, its ranks' CPU over the window), taken as it is and
// charged to the hosts' CPUs (sim/exec/world.hpp) while the two others are
// fitted.
//
// With a second measured run whose rate the model says links between
// switches limit (sim_calibrate.cpp), those links get an efficiency of
// their own (`switch_link_efficiency`): TCP moves a different share of a
// link that flows of several hosts share than of a host's own link.
#include <functional>
#include <string>

#include "apps/evbench/sim_measured.hpp"
#include "core/json_writer.hpp"
#include "topo/platform.hpp"

namespace evb {

// The calibrated parameters and where they came from: an overlay on the
// platform file, written by --calibrate and read back by --calibration.
class Calibration {
 public:
  double link_efficiency = 1;  // every link's bandwidth is multiplied by it
  // Links between two switches, when fitted apart; 0: not fitted, they
  // take link_efficiency like every other link.
  double switch_link_efficiency = 0;
  double message_overhead_s = 0;  // added to every message's delivery
  // Host CPU per fragment an RU sends / a BU receives (seconds), and where
  // they came from (or why they are 0).
  double ru_fragment_cpu_s = 0, bu_fragment_cpu_s = 0;
  std::string fragment_cpu_from;
  std::string platform;  // the platform file it was fitted on
  std::string model = "credit";
  // The measured run: its file, its configuration in one line, the hosts it
  // ran on and the commit of the evbench that measured it.
  std::string from_file, from_config, from_hosts, from_git_sha;
  double measured_gbps = 0;        // per node, results.bandwidth_gbps.per_node.avg
  double measured_latency_ms = 0;  // results.latency_ms.p50 (0: not fitted to it)
  double uncalibrated_gbps = 0;    // the same run simulated at link efficiency 1
  double calibrated_gbps = 0;      // ... at the fitted efficiency
  int iterations = 0;
  // Where switch_link_efficiency came from, when fitted: the run, which of
  // its rates were the switch links' (the whole run, or a scan's shifts),
  // and the mean of those rates measured, simulated at 1 and at the fit.
  struct SwitchFrom {
    std::string file, config, rates;
    double measured_gbps = 0, uncalibrated_gbps = 0, calibrated_gbps = 0;
    int iterations = 0;
  };
  SwitchFrom switch_from;
  std::string overlay;  // the overlay file this was read from or written to

  // The efficiency of the links between switches.
  double switch_efficiency() const {
    return switch_link_efficiency > 0 ? switch_link_efficiency : link_efficiency;
  }

  // The overlay file's text (YAML).
  std::string overlay_yaml() const;
  bool has_fragment_cpu() const { return ru_fragment_cpu_s > 0 || bu_fragment_cpu_s > 0; }
  // results.calibration's fields. `charged`: the predicted run's hosts were
  // charged the per-fragment CPU (false: its protocol has no RU or BU).
  void write_json(JsonWriter& w, bool charged = true) const;
  // One `#` line for the text report.
  std::string text_line(bool charged = true) const;
};

// The per-fragment CPU at the RU and BU as the measured run recorded it
// (MeasuredRun ru_fragment_cpu_s, bu_fragment_cpu_s), and where it came
// from in one line for the overlay (or why it is 0: not recorded).
struct FragmentCpuFit {
  double ru_s = 0, bu_s = 0;
  std::string from;
};
FragmentCpuFit fragment_cpu_of(const MeasuredRun& m);

// Reads an overlay file written by --calibrate; ConfigError naming the
// file and key otherwise.
Calibration load_calibration(const std::string& path);
Calibration parse_calibration(const std::string& text, const std::string& name);

// Multiplies the bandwidth of every link between two switches by the
// calibration's switch_efficiency() and every other link's (a host's own)
// by its link efficiency (the per-message overhead is the network's,
// run_credit_on).
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

// The two-parameter fit: `simulate(e, o)` gives the simulated per-node rate
// and median event latency (s) with links at e and a per-message overhead
// of o seconds. For a given o, e is fitted to the rate
// (fit_link_efficiency); o is searched (secant steps from 0, never below
// 0) until the latency at that point agrees within `latency_tolerance`
// (relative) or after `max_rounds` steps. Returns the point whose latency
// came closest. o stays 0 when `measured_latency_s` is 0, and when the
// first step's overhead does not lengthen the latency at that step's
// efficiency (one more simulation, without the overhead): a host's cost
// only adds time, and what else a delay does to the simulated events (it
// can reorder them, and shorten their median latency) is no host's cost.
struct SimulatedRun {
  double rate = 0;       // Gb/s per node
  double latency_s = 0;  // median event latency
};
struct CalibrationFit {
  double efficiency = 1;
  double overhead_s = 0;
  SimulatedRun first;  // at e = 1, o = 0
  SimulatedRun last;   // at the returned parameters
  int simulations = 0;
};
CalibrationFit fit_calibration(double measured_rate, double measured_latency_s,
                               const std::function<SimulatedRun(double, double)>& simulate,
                               double latency_tolerance = 0.05, int max_rounds = 5);

}  // namespace evb
