#pragma once
// The Prometheus text exposition format (version 0.0.4) of a snapshot:
// metric families named evbench_<what>_<unit>, counters ending in _total,
// every series labelled with the run's protocol, variant and data path
// (docs/MONITORING.md lists them). `previous` (may be null) gives the rates
// over the last interval.
#include <string>

#include "monitor/snapshot.hpp"

namespace evb {

std::string prometheus_text(const MonitorSnapshot& latest, const MonitorSnapshot* previous);

}  // namespace evb
