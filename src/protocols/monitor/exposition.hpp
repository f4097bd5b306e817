#pragma once
// The Prometheus text exposition format (version 0.0.4) of a snapshot: one
// family per row of the metric table (metric_table.hpp, which
// docs/MONITORING.md lists), in its order, every series labelled with the
// run's protocol, variant and data path. `previous` (may be null) gives the
// rates over the last interval.
#include <string>

#include "protocols/monitor/snapshot.hpp"

namespace evb {

std::string prometheus_text(const MonitorSnapshot& latest, const MonitorSnapshot* previous);

}  // namespace evb
