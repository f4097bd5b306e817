#pragma once
// Work-completion errors turned into evbench completion statuses, once, at
// the driver boundary: each ibv_wc_status becomes an OpStatus and a message
// naming the peer, the operation and what to look at.
#include <infiniband/verbs.h>

#include <string>

#include "drivers/api/driver.hpp"

namespace evb::verbs {

struct WcError {
  OpStatus status = OpStatus::error;
  std::string message;
};

// `what` names the operation ("send", "rdma_write", "recv").
WcError wc_error(ibv_wc_status status, const char* what, PeerId peer);

}  // namespace evb::verbs
