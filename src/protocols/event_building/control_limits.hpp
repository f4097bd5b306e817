#pragma once
// What run-time control (POST /control and the `control:` list) may set in
// an event builder's run, from its configuration: the limits the monitor's
// parser (monitor/control.hpp) checks each change against.
#include "core/config.hpp"
#include "protocols/monitor/control.hpp"

namespace evb {

// parallel 1..nodes (PULL-style builders only: `pulls`), credits 1..the
// slots allocated, fu.processing_time up to peer_timeout (or its value at
// start, if larger: a longer FU time would read as a silent peer), each RU's
// factor up to where its fragments reach the largest size its ring and the
// BU windows hold.
ControlLimits control_limits(const Config& c, bool pulls);

}  // namespace evb
