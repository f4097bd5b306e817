// A peer going down in the verbs driver: a completion failed now, a protocol
// error (the peer is no longer trusted), and peer_down() — the peer_event,
// the queue pair to the error state, and everything waiting on the peer
// failed exactly once.
#include "drivers/verbs/verbs_driver.hpp"

namespace evb::verbs {

void VerbsDriver::fail_now(OpType type, PeerId peer, Tag tag, uint64_t cookie, size_t bytes,
                           OpStatus status, const std::string& why) {
  Completion c;
  c.cookie = cookie;
  c.type = type;
  c.status = status;
  c.peer = peer;
  c.tag = tag;
  c.bytes = bytes;
  last_error_ = why;
  ready_.push_back(c);
}

void VerbsDriver::protocol_error(PeerId peer, const std::string& why) {
  last_error_ = prefix() + ": " + rank_name(peer) + " " + why + "; the connection is dropped";
  peer_down(peer, OpStatus::peer_lost, last_error_);
}

// `peer` closed (its bye) or is lost: a peer_event, then every operation
// waiting on it fails. A lost peer's queue pair goes to the error state so
// the HCA gives up its work requests; their records are retired here.
void VerbsDriver::peer_down(PeerId peer, OpStatus status, const std::string& why) {
  Peer& p = peers_[peer];
  if (p.state == PeerState::lost || p.state == PeerState::none) return;
  const bool was_up = p.state == PeerState::open || p.state == PeerState::connecting;
  if (status == OpStatus::peer_closed && !was_up) return;
  if (status != OpStatus::peer_closed) {
    if (!why.empty()) last_error_ = why;
    ibv_qp_attr attr{};
    attr.qp_state = IBV_QPS_ERR;
    ibv_modify_qp(p.qp, &attr, IBV_QP_STATE);
    retired_.clear();
    p.sq->drain(retired_);
    for (uint64_t id : retired_) {
      const uint32_t i = wr_index(id);
      if (i < records_.size() && records_[i].live) finish_record(i, OpStatus::peer_lost);
    }
    p.state = PeerState::lost;
    ++lost_peers_;
  } else {
    p.state = PeerState::closed;
  }
  if (was_up && open_peers_ > 0) --open_peers_;
  const OpStatus held_status =
      status == OpStatus::peer_closed ? OpStatus::peer_closed : OpStatus::peer_lost;
  // Held operations never reached the queue pair (a bye or hello for a
  // closed peer is still sent: that peer waits for it).
  std::deque<Held> keep;
  for (Held& h : p.held) {
    if (p.state == PeerState::closed && (h.kind == Held::Kind::bye))
      keep.push_back(std::move(h));
    else if (h.kind == Held::Kind::send)
      fail_now(OpType::send, peer, h.tag, h.cookie, 0, held_status, why);
    else if (h.kind == Held::Kind::write)
      fail_now(OpType::rdma_write, peer, 0, h.cookie, 0, held_status, why);
  }
  p.held = std::move(keep);
  if (p.receiving) {
    p.receiving = false;
    const RecvTarget t = p.target;
    p.target = {};
    matcher_.end_message(peer, p.rtag, t, p.rlength, held_status);
  }
  if (was_up) {
    Completion c;
    c.type = OpType::peer_event;
    c.status = held_status;
    c.peer = peer;
    ready_.push_back(c);
  }
  matcher_.fail_peer(peer, held_status);
  if (had_peers_ && open_peers_ == 0)
    matcher_.fail_any(lost_peers_ > 0 ? OpStatus::peer_lost : OpStatus::peer_closed);
}

}  // namespace evb::verbs
