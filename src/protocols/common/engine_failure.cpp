// The Engine's words for a failed operation or a lost peer, and the error
// that ends the run with them (on_failure abort).
#include <algorithm>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "protocols/common/engine.hpp"

namespace evb {
namespace {

const char* status_text(OpStatus s) {
  switch (s) {
    case OpStatus::ok:
      return "ok";
    case OpStatus::peer_lost:
      return "peer lost";
    case OpStatus::peer_closed:
      return "peer closed";
    case OpStatus::truncated:
      return "message truncated";
    case OpStatus::error:
      return "error";
  }
  return "?";
}
}  // namespace

std::string Engine::failure_text(const Completion& c) const {
  if (c.type == OpType::peer_event)
    return peer_name(c.peer) +
           (c.status == OpStatus::peer_closed ? " left the run early" : " disappeared");
  const char* op = c.type == OpType::send         ? "send to "
                   : c.type == OpType::rdma_write ? "write to "
                   : c.type == OpType::recv       ? "receive from "
                                                  : "write from ";
  return op + peer_name(c.peer) + " failed: " + status_text(c.status);
}

void Engine::fail(const Completion& c) {
  std::string what = "rank " + std::to_string(rank_) + ": " + failure_text(c);
  // Other peers that failed in the same poll, once each.
  std::vector<PeerId> named{c.peer};
  for (const Completion& o : batch_) {
    if (o.status == OpStatus::ok || o.peer < 0 ||
        std::find(named.begin(), named.end(), o.peer) != named.end())
      continue;
    named.push_back(o.peer);
    what += "; " + failure_text(o);
  }
  const std::string detail = driver_.last_error();
  if (!detail.empty()) what += " (" + detail + ")";
  throw PeerError(c.peer, what);
}

}  // namespace evb
