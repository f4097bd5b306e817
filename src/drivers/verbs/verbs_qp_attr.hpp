#pragma once
// The attributes of each queue-pair state transition (RESET -> INIT -> RTR
// -> RTS), built from the driver options, this port and the peer's address.
// Pure functions over libibverbs' structs, so the values every HCA will see
// are tested without one; verbs_device.cpp only hands them to ibv_modify_qp.
#include <infiniband/verbs.h>

#include <array>
#include <cstdint>
#include <string>

#include "drivers/verbs/verbs_address.hpp"
#include "drivers/verbs/verbs_options.hpp"

namespace evb::verbs {

// This rank's port as the transitions need it.
struct LocalPort {
  uint8_t port = 1;
  uint8_t mtu = 0;        // enum ibv_mtu of the port's active MTU
  bool use_gid = false;   // GID addressing (Ethernet ports, or gid_index set)
  uint8_t gid_index = 0;  // the local GID table index when use_gid
};

struct QpTransition {
  ibv_qp_attr attr{};
  int mask = 0;
  std::string error;  // non-empty: the peer cannot be reached this way
};

// RESET -> INIT: port, partition key 0, remote writes allowed (the BU
// windows) next to local writes.
QpTransition init_transition(const LocalPort& local);

// INIT -> RTR: towards `peer`'s queue pair `remote` (its QPN and PSN for
// this rank). Path MTU is the smaller of the two; a GID route when this
// port uses GIDs (then the peer must have published one). Receives do no
// RDMA READ or atomics, so one responder resource is enough.
QpTransition rtr_transition(const LocalPort& local, const VerbsAddress& peer,
                            const QpEndpoint& remote);

// RTR -> RTS: this rank's initial PSN, timeouts and retry counts from the
// options.
QpTransition rts_transition(const VerbsOptions& o, uint32_t local_psn);

// The first hop limit of a GID route (RoCE v2 is routed over IP).
constexpr uint8_t kHopLimit = 64;
// Receiver-not-ready NAK delay code 12 = 0.64 ms (only reached if credits are wrong).
constexpr uint8_t kMinRnrTimer = 12;

}  // namespace evb::verbs
