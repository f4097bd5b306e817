#include "drivers/verbs/verbs_errors.hpp"

namespace evb::verbs {

namespace {

// Why, and which status protocols see. Peer-side failures of a reliable
// connection (no ACK within timeout x retry_count, a flushed queue pair)
// mean the peer is gone; the rest are errors in what was posted.
WcError classify(ibv_wc_status status) {
  switch (status) {
    case IBV_WC_RETRY_EXC_ERR:
      return {OpStatus::peer_lost,
              "transport retries exceeded: the peer did not acknowledge (dead, unreachable, or "
              "driver_options.timeout / retry_count too small for the fabric)"};
    case IBV_WC_RNR_RETRY_EXC_ERR:
      return {OpStatus::error,
              "receiver not ready: the peer had no receive buffer posted although it had "
              "granted a credit (a credit-accounting bug; please report)"};
    case IBV_WC_REM_ACCESS_ERR:
      return {OpStatus::error,
              "remote access error: the write fell outside the peer's registered window or its "
              "key is stale"};
    case IBV_WC_REM_INV_REQ_ERR:
      return {OpStatus::error,
              "remote invalid request: the message was longer than the peer's receive buffer"};
    case IBV_WC_REM_OP_ERR:
      return {OpStatus::error, "the peer could not complete the operation"};
    case IBV_WC_WR_FLUSH_ERR:
      return {OpStatus::peer_lost,
              "flushed: the queue pair to the peer went to the error state after an earlier "
              "failure"};
    case IBV_WC_LOC_LEN_ERR:
      return {OpStatus::truncated, "local length error: message longer than the posted buffer"};
    case IBV_WC_LOC_PROT_ERR:
      return {OpStatus::error,
              "local protection error: a segment is not covered by its memory region"};
    case IBV_WC_REM_ABORT_ERR:
      return {OpStatus::peer_lost, "the peer aborted the operation"};
    default:
      return {OpStatus::error, "work completion failed"};
  }
}

}  // namespace

WcError wc_error(ibv_wc_status status, const char* what, PeerId peer) {
  WcError e = classify(status);
  const std::string who = peer == kAnyPeer ? "a peer" : "rank " + std::to_string(peer);
  e.message = std::string("verbs: ") + what + " with " + who + ": " + ibv_wc_status_str(status) +
              ": " + e.message;
  return e;
}

}  // namespace evb::verbs
