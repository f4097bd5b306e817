#pragma once
// How an idle rank waits, decided once per rank before its protocol runs.
#include "core/config.hpp"

namespace evb {

// The poll mode a rank runs. `automatic`: busy when the evbench processes on
// this host (`local_processes`) do not outnumber its logical CPUs (`cores`),
// else block where the driver can block, else yield. A forced `block` on a
// driver that cannot block becomes yield; busy and yield are kept.
PollMode effective_poll_mode(PollMode configured, int local_processes, int cores,
                             bool driver_can_block);

}  // namespace evb
