#pragma once
// A steered run's phases (results.phases, results.control_initial and the
// table's phase lines; docs/METRICS.md "Phases of a steered run"): the
// measured window split at each run-time change (POST /control or the
// `control:` list), each stretch with the knobs in force and its own
// figures, computed the way the headline is. The EVM books the built
// events per phase (PhaseBook, below) as their
// credits arrive, counting those each BU counted in its window; rank 0
// splits them here. The configuration the results show is the one the run
// ended with (config_as_ended); the knobs it started with stay in
// results.control_initial.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "protocols/monitor/snapshot.hpp"

namespace evb {

// The EVM's books of one stretch of a steered run, from `from_s` (seconds
// since its t0) until the next one begins: the built events whose credits
// arrived in it, all of them and those their BU counted in its window.
// `first_control`: the run-time changes (EventBuildingStats::control)
// applied before it began.
struct PhaseBook {
  double from_s = 0;
  uint64_t first_control = 0;
  uint64_t events = 0;
  uint64_t bytes = 0;
  uint64_t window_events = 0;
  uint64_t window_bytes = 0;
};

// The knobs POST /control can turn, as they stand at one moment.
struct ControlKnobs {
  int parallel = 0;
  int credits = 0;
  double processing_time_s = 0;
  std::vector<double> ru_rate_factors;  // one per RU
  bool paused = false;
  std::vector<bool> background;  // per `background` entry: switched on (empty: none)

  // The knobs a run of `c` starts with (ru_rate_factors: one per node, 1 unless set).
  static ControlKnobs at_start(const Config& c);
  // After the change `r` (its value as recorded: "2", "0.002", "[1, 0.5]").
  void apply(const ControlRecord& r);
  bool operator==(const ControlKnobs&) const = default;
};

// The name a change's key has among the knobs: "parallel", "credits",
// "fu.processing_time", "ru_rate_factors", "paused" (for pause and resume),
// or "background" (for background.N.active).
std::string knob_of(const ControlRecord& r);

// The knobs a run's changes touched, in the order above: what a phase's
// settings show.
std::vector<std::string> steered_knobs(const std::vector<ControlRecord>& control);

// One stretch of the window between two changes. Times in seconds since
// the EVM's t0; rate_gbps as the headline's per-node average (bytes x 8 /
// (to_s - from_s) / nodes), event_rate in events per second.
struct ControlPhase {
  double from_s = 0;
  double to_s = 0;
  ControlKnobs settings;
  uint64_t events = 0;
  uint64_t bytes = 0;
  double rate_gbps = 0;
  double event_rate = 0;
};

// The phases of the window [from_s, to_s] from the EVM's books: each book
// runs until the next one begins, clipped to the window; `whole_run` counts
// every built event (the window is the whole run: results.warmup_ignored),
// else those the BUs counted in their windows. A book with nothing of the
// window left hands its events to the next phase (the last: to the one
// before), and neighbours with the same knobs merge, so the phases' events
// add up to the books' and no phase is empty. None without changes.
std::vector<ControlPhase> split_phases(const std::vector<PhaseBook>& books,
                                       const std::vector<ControlRecord>& control,
                                       const ControlKnobs& initial, double from_s, double to_s,
                                       bool whole_run, int nodes);

// `c` with every change applied: the knobs as the run ended.
Config config_as_ended(Config c, const std::vector<ControlRecord>& control);

// "parallel=4 credits=2" for the knobs in `keys`.
std::string settings_text(const ControlKnobs& k, const std::vector<std::string>& keys);

}  // namespace evb
