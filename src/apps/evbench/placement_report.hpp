#pragma once
// The run's placement as the report gives it: one line in the table
// ("# placement: ...") and results.placement in the JSON (docs/METRICS.md):
// what `bind` asked, that line, and each rank's host and CPUs as the rank
// found them after start-up (sched_getaffinity), whoever bound it.
#include <string>

#include "apps/evbench/run_options.hpp"
#include "core/config.hpp"
#include "core/json_writer.hpp"
#include "protocols/api/run_summary.hpp"

namespace evb {

// core/placement.hpp's describe_placement over the ranks that reported;
// under `evbench sim` the ranks are threads of one process, which it says.
std::string placement_line(const Config& c, const Summary& s, const RunOptions& o);
// "placement": {"bind", "summary", "ranks": [{"rank", "host", "cpus"}]}.
void write_placement(JsonWriter& w, const Config& c, const Summary& s, const std::string& line);

}  // namespace evb
