#pragma once
// A barrel-shift all-to-all over a CreditNetwork, the workload of the
// model's speed bench (bench/simnet_speed.cpp) and of its convergence test:
// at step s host h sends to host (h + s) mod N, s = 1 .. N-1, `rounds` times
// over; each host keeps at most `in_flight` messages undelivered and sends
// its next one the moment one of its messages is delivered.
#include <cstdint>

#include "sim/credit/network.hpp"

namespace evb::simnet {

struct AllToAll {
  uint64_t message_bytes = 512 * 1024;
  int rounds = 1;
  int in_flight = 16;
};

struct AllToAllResult {
  uint64_t delivered = 0;  // messages
  int64_t end_ns = 0;      // the last delivery
  bool stuck = false;      // messages left undelivered with nothing moving
  // Bytes each host received per second of simulated time, in Gbit/s.
  double per_host_gbps = 0;
};

// Runs the workload on a network with nothing in flight, from time 0.
AllToAllResult run_all_to_all(CreditNetwork& net, int hosts, const AllToAll& w);

}  // namespace evb::simnet
