#pragma once
// What a successful receive work completion is: a peer's RDMA WRITE WITH
// IMMEDIATE (a remote_write completion: bytes written, the immediate back
// in host byte order), one of the driver's SENDs (bytes to decode), or
// something this driver never sends (the peer is then not trusted). A pure
// function of the ibv_wc, tested without a device.
#include <infiniband/verbs.h>

#include <cstddef>

#include "drivers/api/driver.hpp"

namespace evb::verbs {

enum class RecvKind : uint8_t { remote_write, message, foreign };

struct RecvEvent {
  RecvKind kind = RecvKind::foreign;
  Completion completion;  // remote_write: the completion to report
  size_t bytes = 0;       // message: its length in the receive buffer
};

// `peer` is the rank whose queue pair `wc` came from; `buffer_bytes` the
// size of the receive buffers (a longer SEND cannot be one of ours).
RecvEvent classify_recv(const ibv_wc& wc, PeerId peer, size_t buffer_bytes);

}  // namespace evb::verbs
