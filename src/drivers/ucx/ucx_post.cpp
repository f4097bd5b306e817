// Posting: argument checks, then one UCX call per operation (a put per
// segment plus a flush for writes). Nothing here blocks; an operation that
// cannot be posted completes at once with the reason.
#include <limits>

#include "drivers/common/rank_tags.hpp"
#include "drivers/ucx/ucx_driver.hpp"
#include "drivers/ucx/ucx_memory.hpp"

namespace evb::ucx {

namespace {

constexpr uint64_t kAllBits = std::numeric_limits<uint64_t>::max();

// Callback + user data (+ the memory handle when the caller registered the
// buffer: UCX then skips its own registration for zero-copy protocols).
ucp_request_param_t params_for(Op* op, const Registration* reg) {
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.user_data = op;
  if (reg && reg->descriptor()) {
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMH;
    p.memh = static_cast<ucp_mem_h>(reg->descriptor());
  }
  return p;
}

size_t total_of(std::span<const Segment> segments) {
  size_t total = 0;
  for (const Segment& s : segments) {
    if (s.size > std::numeric_limits<size_t>::max() - total)
      return std::numeric_limits<size_t>::max();
    total += s.size;
  }
  return total;
}

}  // namespace

const char* UcxDriver::refuse_peer(PeerId peer, OpStatus* status) const {
  *status = OpStatus::error;
  if (!valid_rank(peer)) return "is not a rank of this run";
  switch (book_.state(peer)) {
    case PeerState::none:
    case PeerState::connecting:
      return "is not connected";
    case PeerState::closed:
      *status = OpStatus::peer_closed;
      return "has shut down";
    case PeerState::lost:
      *status = OpStatus::peer_lost;
      return "was lost";
    case PeerState::open:
      break;
  }
  return nullptr;
}

void UcxDriver::post_send(PeerId peer, Tag tag, std::span<const Segment> segments,
                          uint64_t cookie) {
  OpStatus status = OpStatus::error;
  auto what = [&] { return prefix() + ": send to " + rank_name(peer); };
  if (shut_down_)
    return done_.fail(OpType::send, peer, tag, cookie, status, what() + ": shut down");
  if (const char* why = refuse_peer(peer, &status))
    return done_.fail(OpType::send, peer, tag, cookie, status, what() + ": it " + why);
  if (segments.size() > caps_.max_segments)
    return done_.fail(OpType::send, peer, tag, cookie, OpStatus::error,
                      what() + ": " + std::to_string(segments.size()) + " segments, at most " +
                          std::to_string(caps_.max_segments));
  const size_t total = total_of(segments);
  if (total > caps_.max_message)
    return done_.fail(OpType::send, peer, tag, cookie, OpStatus::error,
                      what() + ": " + std::to_string(total) + " bytes, at most " +
                          std::to_string(caps_.max_message));

  Op* op = ops_.get(OpKind::send);
  op->cookie = cookie;
  op->peer = peer;
  op->tag = tag;
  op->size = total;
  ucp_request_param_t p = params_for(op, segments.size() == 1 ? segments[0].reg : nullptr);
  p.cb.send = send_callback;
  const void* buffer = nullptr;
  size_t count = 0;
  if (segments.size() == 1) {
    buffer = segments[0].data;
    count = segments[0].size;
  } else if (segments.size() > 1) {
    op->iov.resize(segments.size());
    for (size_t i = 0; i < segments.size(); ++i) {
      op->iov[i].buffer = const_cast<void*>(segments[i].data);
      op->iov[i].length = segments[i].size;
    }
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
    p.datatype = ucp_dt_make_iov();
    buffer = op->iov.data();
    count = segments.size();
  }
  ucs_status_ptr_t r =
      ucp_tag_send_nbx(peers_[peer].ep, buffer, count, user_tag(context_.rank, tag), &p);
  if (r == nullptr) {
    complete(op, OpStatus::ok, total, peer, tag, {});
  } else if (UCS_PTR_IS_ERR(r)) {
    complete(op, status_for(peer, UCS_PTR_STATUS(r)), total, peer, tag,
             what() + ": ucp_tag_send_nbx: " + status_text(UCS_PTR_STATUS(r)));
  } else {
    op->request = r;
  }
}

bool UcxDriver::unexpected_waiting(PeerId peer, Tag tag) const {
  ucp_worker_progress(worker_->worker());
  ucp_tag_recv_info_t info{};
  const uint64_t t = user_tag(peer == kAnyPeer ? 0 : peer, tag);
  const uint64_t mask = peer == kAnyPeer ? ~kRankMask : kAllBits;
  return ucp_tag_probe_nb(worker_->worker(), t, mask, 0, &info) != nullptr;
}

void UcxDriver::post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
                          uint64_t cookie) {
  auto what = [&] { return prefix() + ": receive from " + rank_name(peer); };
  if (shut_down_)
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::error, what() + ": shut down");
  if (peer != kAnyPeer) {
    OpStatus status = OpStatus::error;
    if (const char* why = refuse_peer(peer, &status)) {
      // A departed peer's messages that already arrived are still delivered.
      if (status == OpStatus::error || !unexpected_waiting(peer, tag))
        return done_.fail(OpType::recv, peer, tag, cookie, status, what() + ": it " + why);
    }
  } else if (book_.all_down() && !unexpected_waiting(peer, tag)) {
    return done_.fail(OpType::recv, peer, tag, cookie, book_.any_status(),
                      what() + ": every peer has shut down or was lost");
  }
  if (size > caps_.max_message)
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::error,
                      what() + ": " + std::to_string(size) + " bytes, at most " +
                          std::to_string(caps_.max_message));
  Op* op = ops_.get(OpKind::recv);
  op->cookie = cookie;
  op->peer = peer;
  op->tag = tag;
  op->size = size;
  start_recv(op, buffer, size, reg);
}

void UcxDriver::start_recv(Op* op, void* buffer, size_t size, const Registration* reg) {
  ucp_request_param_t p = params_for(op, reg);
  p.cb.recv = recv_callback;
  // UCX 1.13 does not fill recv_info when it completes a receive at once,
  // so there is no immediate completion: a request always, whose callback
  // may run before ucp_tag_recv_nbx returns (then op->posting catches it).
  p.op_attr_mask |= UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
  uint64_t t = 0;
  uint64_t mask = kAllBits;
  if (op->kind == OpKind::ctl_recv) {
    t = control_tag(0);
    mask = ~kRankMask;
  } else if (op->peer == kAnyPeer) {
    t = user_tag(0, op->tag);
    mask = ~kRankMask;
  } else {
    t = user_tag(op->peer, op->tag);
  }
  op->posting = true;
  ucs_status_ptr_t r = ucp_tag_recv_nbx(worker_->worker(), buffer, size, t, mask, &p);
  op->posting = false;
  if (op->done_in_post) {
    op->done_in_post = false;
    on_recv_done(op, op->post_status, &op->info);
  } else if (UCS_PTR_IS_ERR(r)) {
    on_recv_done(op, UCS_PTR_STATUS(r), &op->info);
  } else if (r == nullptr) {
    on_recv_done(op, UCS_OK, &op->info);  // not expected with NO_IMM_CMPL
  } else {
    op->request = r;
    if (op->kind == OpKind::recv) posted_.push(op);
  }
}

void UcxDriver::post_control_recv() {
  Op* op = ops_.get(OpKind::ctl_recv);
  control_recvs_.push_back(op);
  start_recv(op, op->ctl, sizeof op->ctl, nullptr);
}

void UcxDriver::post_control(PeerId peer, const CtlMessage& m, Op* op) {
  op->peer = peer;
  encode(m, op->ctl);
  ucp_request_param_t p = params_for(op, nullptr);
  p.cb.send = send_callback;
  if (op->kind == OpKind::ctl_send) ++control_sends_;
  ucs_status_ptr_t r =
      ucp_tag_send_nbx(peers_[peer].ep, op->ctl, kControlBytes, control_tag(context_.rank), &p);
  if (r == nullptr) {
    on_send_done(op, UCS_OK);
  } else if (UCS_PTR_IS_ERR(r)) {
    on_send_done(op, UCS_PTR_STATUS(r));
  } else {
    op->request = r;
  }
}

void UcxDriver::rdma_write(PeerId peer, std::span<const Segment> local, const RemoteKey& key,
                           uint64_t offset, std::optional<uint32_t> immediate, uint64_t cookie) {
  OpStatus status = OpStatus::error;
  auto what = [&] { return prefix() + ": write to " + rank_name(peer); };
  auto refuse = [&](OpStatus s, const std::string& why) {
    done_.fail(OpType::rdma_write, peer, 0, cookie, s, what() + ": " + why);
  };
  if (shut_down_) return refuse(status, "shut down");
  if (const char* why = refuse_peer(peer, &status)) return refuse(status, std::string("it ") + why);
  const auto* ukey = dynamic_cast<const UcxRemoteKey*>(&key);
  if (!ukey) return refuse(OpStatus::error, "the key was not unpacked by this driver");
  if (key.peer() != peer)
    return refuse(OpStatus::error, "the key belongs to " + rank_name(key.peer()));
  if (local.size() > caps_.max_segments)
    return refuse(OpStatus::error, std::to_string(local.size()) + " segments, at most " +
                                       std::to_string(caps_.max_segments));
  const size_t total = total_of(local);
  if (offset > key.size() || total > key.size() - offset)
    return refuse(OpStatus::error, std::to_string(total) + " bytes at offset " +
                                       std::to_string(offset) + " pass the end of its " +
                                       std::to_string(key.size()) + "-byte region");

  Op* op = ops_.get(OpKind::write);
  op->cookie = cookie;
  op->peer = peer;
  op->size = total;
  op->immediate = immediate;
  op->posting = true;  // callbacks that run before the flush is posted only record
  ucp_ep_h ep = peers_[peer].ep;
  uint64_t at = ukey->base() + offset;
  for (const Segment& s : local) {
    if (s.size == 0) continue;
    // A put completes when its source may be reused (UCX: local completion);
    // the flush below says when every put has landed.
    ucp_request_param_t p = params_for(op, s.reg);
    p.cb.send = put_callback;
    ucs_status_ptr_t r = ucp_put_nbx(ep, s.data, s.size, at, ukey->rkey(), &p);
    if (UCS_PTR_IS_ERR(r)) {
      write_failed(op, UCS_PTR_STATUS(r), "ucp_put_nbx");
      break;
    }
    if (r != nullptr) ++op->puts_left;  // put_callback frees the request
    at += s.size;
  }
  if (immediate && peers_[peer].one_lane) {
    // One lane: the notify, posted once the puts completed locally (handed
    // to the lane), travels behind them on the same connection, and UCP's
    // fence orders it after them (ucp_worker_fence: what was issued before
    // completes before what is issued after; in UCX 1.13 a fence of each
    // transport interface, which is the whole of a one-lane endpoint). The
    // target thus reads no slot before its bytes are in, as after a flush,
    // without the flush's round trip (docs/drivers/ucx.md, "One lane: the
    // notify behind the puts").
    const ucs_status_t fenced = ucp_worker_fence(worker_->worker());
    op->flushed = true;
    if (fenced != UCS_OK) write_failed(op, fenced, "ucp_worker_fence");
  } else {
    ucp_request_param_t p = params_for(op, nullptr);
    p.cb.send = flush_callback;
    ++write_flushes_;
    ucs_status_ptr_t r = ucp_ep_flush_nbx(ep, &p);
    if (r == nullptr) {
      op->flushed = true;
    } else if (UCS_PTR_IS_ERR(r)) {
      op->flushed = true;
      write_failed(op, UCS_PTR_STATUS(r), "ucp_ep_flush_nbx");
    } else {
      op->request = r;
    }
  }
  op->posting = false;
  write_progress(op);
}

void UcxDriver::send_notify(Op* op) {
  op->notifying = true;
  post_control(op->peer,
               CtlMessage{.kind = CtlKind::notify,
                          .rank = static_cast<uint32_t>(context_.rank),
                          .size = static_cast<uint32_t>(context_.size),
                          .a = op->size,
                          .b = *op->immediate},
               op);
}

}  // namespace evb::ucx
