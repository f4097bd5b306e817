#pragma once
// The micro-benchmarks' own part of what a rank sends rank 0
// (RankStats::own, protocols/common/rank_stats.hpp): what its sending (RU)
// and receiving (BU) side counted, overall and per step. The rank's agent
// counts into it (MicrobenchRun owns it), the run encodes it at the end
// (microbench_stats_fields.hpp holds its field table), and rank 0's
// MicrobenchReport reads every rank's back.
#include <cstdint>
#include <vector>

#include "units/builder_unit.hpp"

namespace evb {

// Each member has a line in FieldTable<MicrobenchStats>
// (microbench_stats_fields.hpp): the members without one do not reach rank 0.
struct MicrobenchStats {
  int bu = -1;  // the node whose receiving side this rank is (-1: none)
  int ru = -1;  // the node whose sending side it is
  // Receiving side: data messages received, their bytes, and of those the
  // bytes from other nodes' RUs (that crossed the driver).
  uint64_t events_built = 0;
  uint64_t bytes_total = 0;
  uint64_t network_bytes_total = 0;
  // Sending side: data messages sent, and bytes (metadata messages too).
  uint64_t fragments_sent = 0;
  uint64_t bytes_sent = 0;
  // Messages found corrupt (wrong peer, size or content) and checked.
  IntegrityCounters integrity;
  // Data messages whose header was checked, and those whose header was not:
  // their receive slot was shared with another message in flight
  // (receive_slots < parallel), so what it held could be that one's.
  // Every data message's length is checked.
  uint64_t headers_checked = 0;
  uint64_t headers_unchecked = 0;
  // Bytes received in the window, per shift step (one-to-one scan) or one
  // entry; and each step's window length.
  std::vector<uint64_t> step_bytes;
  std::vector<uint64_t> step_messages;       // data messages received in the window, per step
  std::vector<uint64_t> step_network_bytes;  // of step_bytes, those from other nodes' RUs
  std::vector<double> step_window_s;
};

}  // namespace evb
