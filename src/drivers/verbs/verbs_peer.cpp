// A peer going down in the verbs driver: a protocol error (the peer is no
// longer trusted), and peer_down() — the peer_event, the queue pair to the
// error state, and everything waiting on the peer failed exactly once.
#include "drivers/common/peer_down.hpp"
#include "drivers/verbs/verbs_driver.hpp"

namespace evb::verbs {

void VerbsDriver::protocol_error(PeerId peer, const std::string& why) {
  done_.note(prefix() + ": " + rank_name(peer) + " " + why + "; the connection is dropped");
  peer_down(peer, OpStatus::peer_lost, done_.last_error());
}

// `peer` closed (its bye) or is lost, in the chassis's order
// (drivers/common/peer_down.hpp). A lost peer's queue pair goes to the error
// state so the HCA gives up its work requests; their records are retired
// here. An RC queue pair can fail after the bye (LateLoss::counts): such a
// peer gets no second peer_event, but its queue pair and what is still held
// for it go the same way.
void VerbsDriver::peer_down(PeerId peer, OpStatus status, const std::string& why) {
  take_peer_down(
      book_, done_, peer, status, why, LateLoss::counts,
      [this](PeerId p, OpStatus st, const std::string& reason) { fail_peer_ops(p, st, reason); },
      [this](OpStatus st, const std::string&) { matcher_.fail_any(st); });
}

void VerbsDriver::fail_peer_ops(PeerId peer, OpStatus status, const std::string& why) {
  Peer& p = peers_[peer];
  const bool lost = status == OpStatus::peer_lost;
  if (lost) {
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_ERR;
    ibv_modify_qp(p.qp, &attr, IBV_QP_STATE);
    retired_.clear();
    p.sq->drain(retired_);
    for (uint64_t id : retired_) {
      const uint32_t i = wr_index(id);
      if (i < records_.size() && records_[i].live) finish_record(i, OpStatus::peer_lost);
    }
  }
  // Held operations never reached the queue pair (a bye or hello for a
  // closed peer is still sent: that peer waits for it).
  std::deque<Held> keep;
  for (Held& h : p.held) {
    if (!lost && h.kind == Held::Kind::bye)
      keep.push_back(std::move(h));
    else if (h.kind == Held::Kind::send)
      done_.fail(OpType::send, peer, h.tag, h.cookie, status, why);
    else if (h.kind == Held::Kind::write)
      done_.fail(OpType::rdma_write, peer, 0, h.cookie, status, why);
  }
  p.held = std::move(keep);
  if (p.receiving) {
    p.receiving = false;
    const RecvTarget t = p.target;
    p.target = {};
    matcher_.end_message(peer, p.rtag, t, p.rlength, status);
  }
  matcher_.fail_peer(peer, status);
}

}  // namespace evb::verbs
