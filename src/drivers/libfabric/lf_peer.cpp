// The libfabric driver taking a peer down (drivers/common/peer_down.hpp for
// the order every driver follows): what this rank sends to it fails at once,
// whether still queued here or already held by libfabric (some providers
// never complete those: ofi_rxm keeps rendezvous sends to a vanished peer
// forever), then the receives posted for it; any-peer receives once nobody
// is left. And the keepalive that finds a peer gone when the provider does
// not say so.
#include <algorithm>
#include <string>
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

void LfDriver::heard_from(PeerId peer) {
  if (!valid_rank(peer)) return;
  Peer& p = peers_[peer];
  p.heard = now_;
  p.awaiting_pong = false;
}

void LfDriver::keepalive() {
  // A peer that has been quiet for a quarter of keepalive_timeout while this
  // rank waits on something gets a ping; one that then stays silent (no
  // pong, no message) for keepalive_timeout is lost. This catches peers whose
  // process died when the provider does not report it (ofi_rxm keeps a
  // rendezvous send to a killed peer forever; shm cannot tell at all).
  const auto timeout = options_.keepalive_timeout;
  const auto quiet = timeout / 4;
  next_keepalive_ =
      now_ + std::min<std::chrono::steady_clock::duration>(quiet, std::chrono::milliseconds(100));
  const bool waiting = user_tx_live_ > 0 || !user_recvs_.empty();
  for (PeerId r = 0; r < context_.size; ++r) {
    Peer& p = peers_[r];
    if (r == context_.rank || !book_.is_open(r)) continue;
    if (p.awaiting_pong) {
      if (now_ - p.pinged >= timeout)
        peer_down(r, OpStatus::peer_lost,
                  prefix() + ": rank " + std::to_string(r) + " answered no keepalive for " +
                      std::to_string(timeout.count()) + " ms (process gone, or not polling)");
      continue;
    }
    if (waiting && now_ - p.heard >= quiet) {
      CtlMessage ping;
      ping.kind = CtlKind::ping;
      ping.rank = static_cast<uint32_t>(context_.rank);
      ping.size = static_cast<uint32_t>(context_.size);
      ping.a = ++ping_seq_;
      p.awaiting_pong = true;
      p.pinged = now_;
      submit_tx(make_control(r, ping));
    }
  }
}

}  // namespace evb::libfabric
