#pragma once
// The JSON of a shift's predicted rates, written once for `evbench topo
// --json` (its `shifts` array) and for a run's results.shifts[k].predicted.
#include "core/json_writer.hpp"
#include "topo/platform.hpp"
#include "topo/shift_scan.hpp"

namespace evb::topo {

// Into the open object: "per_node_values" (predicted receive Gb/s by node),
// "per_node" {min, avg, max}, "max_flows", "worst_links" (link names as
// `evbench topo` prints them).
void write_prediction_fields(JsonWriter& w, const Platform& platform, const ShiftPrediction& s);

}  // namespace evb::topo
