#pragma once
// What `evbench run` passes from the command line to every rank.
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "core/json_writer.hpp"

namespace evb {

struct RunOptions {
  std::string json_path;          // --json FILE (written by rank 0), empty: none
  std::vector<std::string> argv;  // the command line, for the results document
  bool quiet = false;             // --quiet: no live lines
  // Set by `evbench sim` (run --simulated-on PLATFORM) for the SMPI build:
  // the results say they are simulated, on which platform, how much
  // simulated time the run took and how long the simulation took.
  std::string simulated_platform;
  // The simulation's model: "fluid" (SimGrid SMPI) or "credit" (sim --model credit).
  std::string simulation_model = "fluid";
  // The credit model charged the hosts a calibration's CPU per fragment
  // (the simulation note says so).
  bool fragment_cpu_charged = false;
  // What the simulated network saw (the credit model's links), asked by
  // rank 0 when it reports: `#` lines after the table, and fields of
  // results.network. Empty: none.
  std::function<std::string()> network_text;
  std::function<void(JsonWriter&)> network_json;
  // sim --calibrate / --calibration: results.calibration, what was
  // calibrated and from what (apps/evbench/sim_calibration.hpp). Empty: none.
  std::function<void(JsonWriter&)> calibration_json;
  // Wall clock (steady_clock is never simulated) at the command's start.
  std::chrono::steady_clock::time_point wall_start = std::chrono::steady_clock::now();
};

}  // namespace evb
