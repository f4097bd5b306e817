// The libfabric driver taking a peer down (drivers/common/peer_down.hpp for
// the order every driver follows): what this rank sends to it fails at once,
// whether still queued here or already held by libfabric (some providers
// never complete those: ofi_rxm keeps rendezvous sends to a vanished peer
// forever), then the receives posted for it; any-peer receives once nobody
// is left.
#include <utility>
#include <vector>

#include "drivers/common/peer_down.hpp"
#include "drivers/libfabric/lf_driver.hpp"

namespace evb::libfabric {

void LfDriver::peer_down(PeerId peer, OpStatus status, const std::string& why) {
  take_peer_down(
      book_, done_, peer, status, why, LateLoss::ignored,
      [this](PeerId p, OpStatus st, const std::string& reason) { fail_peer_ops(p, st, reason); },
      [this](OpStatus st, const std::string& reason) {
        std::vector<Op*> any;
        for (Op* op : user_recvs_)
          if (op->peer == kAnyPeer) any.push_back(op);
        for (Op* op : any)
          cancel(op, st,
                 prefix() + ": receive from any rank: every peer is gone (last: " + reason + ")");
      });
}

void LfDriver::fail_peer_ops(PeerId peer, OpStatus status, const std::string& why) {
  // Notifications first, so that their writes are reported once.
  std::vector<Op*> tx;
  for (Op* op : ops_.live_ops()) {
    if (op->peer == peer && !op->reported && !op->abandoned && !is_rx(op)) tx.push_back(op);
  }
  (void)tx_queue_.take(peer);  // still live: failed below with the rest
  for (Op* op : tx) {
    if (op->kind != OpKind::ctl_send || !op->live) continue;
    if (Op* parent = std::exchange(op->parent, nullptr)) write_part_done(parent, status, why);
    retire(op);
  }
  for (Op* op : tx) {
    if (!op->live || op->reported || op->abandoned) continue;
    if (op->kind == OpKind::send) {
      finish_user(op, status, 0, peer, op->tag, why);
    } else if (op->kind == OpKind::write) {
      if (Op* note = std::exchange(op->follow_up, nullptr)) retire(note);
      op->parts = 1;
      write_part_done(op, status, why);
    }
  }
  std::vector<Op*> recvs;
  for (Op* op : user_recvs_)
    if (op->peer == peer) recvs.push_back(op);
  for (Op* op : recvs) cancel(op, status, why);
}

}  // namespace evb::libfabric
