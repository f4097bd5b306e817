// The libfabric driver's posting side: argument checks, the one fi_* call
// per operation, and the FI_EAGAIN queues that poll() retries in order.
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include <algorithm>
#include <cstring>

#include "drivers/common/rank_tags.hpp"
#include "drivers/libfabric/lf_driver.hpp"

namespace evb::libfabric {

bool LfDriver::check_segments(std::span<const Segment> segments, size_t limit, Op* op,
                              std::string* why) {
  size_t total = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    if (s.size == 0) continue;
    if (!s.data) {
      *why = "segment " + std::to_string(i) + " has no data pointer";
      return false;
    }
    if (!s.reg && memory_->local()) {
      *why = "segment " + std::to_string(i) + " has no registration (" + name_ +
             " needs registered memory: FI_MR_LOCAL)";
      return false;
    }
    if (s.reg && !s.reg->covers(s.data, s.size)) {
      *why = "segment " + std::to_string(i) + " lies outside its registration";
      return false;
    }
    op->iov.push_back(iovec{const_cast<void*>(s.data), s.size});
    op->desc.push_back(s.reg ? s.reg->descriptor() : nullptr);
    total += s.size;
  }
  if (op->iov.size() > limit) {
    *why = std::to_string(op->iov.size()) + " segments, " + name_ + " takes at most " +
           std::to_string(limit) + " (capabilities().max_segments)";
    return false;
  }
  if (total > caps_.max_message) {
    *why = std::to_string(total) + " bytes, larger than max_message " +
           std::to_string(caps_.max_message);
    return false;
  }
  op->bytes = total;
  return true;
}

void LfDriver::post_send(PeerId peer, Tag tag, std::span<const Segment> segments, uint64_t cookie) {
  // Messages are built only on failure: the data path allocates nothing.
  auto what = [&] { return prefix() + ": send to " + rank_name(peer); };
  if (shut_down_)
    return done_.fail(OpType::send, peer, tag, cookie, OpStatus::error,
                      what() + ": driver shut down");
  if (!reachable(peer))
    return done_.fail(OpType::send, peer, tag, cookie, OpStatus::error,
                      what() + ": not a connected peer");
  if (peer != context_.rank && !book_.is_open(peer))
    return done_.fail(
        OpType::send, peer, tag, cookie, book_.down_status(peer),
        what() + ": the peer " +
            (book_.down_status(peer) == OpStatus::peer_lost ? "was lost" : "shut down"));
  Op* op = ops_.acquire(OpKind::send);
  std::string why;
  if (!check_segments(segments, caps_.max_segments, op, &why)) {
    retire(op);
    return done_.fail(OpType::send, peer, tag, cookie, OpStatus::error, what() + ": " + why);
  }
  op->peer = peer;
  op->tag = tag;
  op->cookie = cookie;
  op->fi_tag = exact_tags_ ? tag : user_tag(context_.rank, tag);
  op->dest = peers_[peer].addr;
  op->use_inject = caps_.inline_size > 0 && op->bytes <= caps_.inline_size;
  ++user_tx_live_;
  submit_tx(op);
}

void LfDriver::post_recv(PeerId peer, Tag tag, void* buffer, size_t size, const Registration* reg,
                         uint64_t cookie) {
  auto what = [&] { return prefix() + ": receive from " + rank_name(peer); };
  if (shut_down_)
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::error,
                      what() + ": driver shut down");
  if (peer != kAnyPeer && !reachable(peer))
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::error,
                      what() + ": not a connected peer");
  if (size > 0 && !buffer)
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::error, what() + ": no buffer");
  if (size > 0 && !reg && memory_->local())
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::error,
                      what() + ": the buffer has no registration (" + name_ +
                          " needs registered memory: FI_MR_LOCAL)");
  if (reg && size > 0 && !reg->covers(buffer, size))
    return done_.fail(OpType::recv, peer, tag, cookie, OpStatus::error,
                      what() + ": the buffer lies outside its registration");
  Op* op = ops_.acquire(OpKind::recv);
  op->peer = peer;
  op->tag = tag;
  op->cookie = cookie;
  op->bytes = std::min(size, caps_.max_message);
  op->iov.push_back(iovec{buffer, op->bytes});
  op->desc.push_back(reg ? reg->descriptor() : nullptr);
  if (exact_tags_) {
    // shm: the exact tag, the source matched on its address (FI_DIRECTED_RECV).
    op->fi_tag = tag;
    op->dest = peer == kAnyPeer ? FI_ADDR_UNSPEC : peers_[peer].addr;
  } else {
    op->fi_tag = user_tag(peer == kAnyPeer ? 0 : peer, tag);
    op->ignore = ignore_bits(peer);
  }
  user_recvs_.insert(op);
  submit_rx(op);
}

void LfDriver::write(PeerId peer, std::span<const Segment> local, const RemoteKey& key,
                     uint64_t offset, std::optional<uint32_t> immediate, uint64_t cookie,
                     bool silent) {
  auto what = [&] { return prefix() + ": rdma_write to " + rank_name(peer); };
  auto fail = [&](OpStatus s, const std::string& why) {
    done_.push(Completion{cookie, OpType::rdma_write, s, peer, 0, 0, immediate.value_or(0)});
    done_.note(what() + ": " + why);
  };
  if (!caps_.rdma_write) return fail(OpStatus::error, "the provider has no RMA");
  if (shut_down_) return fail(OpStatus::error, "driver shut down");
  if (!reachable(peer)) return fail(OpStatus::error, "not a connected peer");
  if (peer != context_.rank && !book_.is_open(peer))
    return fail(book_.down_status(peer), "the peer is gone");
  const auto* rkey = dynamic_cast<const LfRemoteKey*>(&key);
  if (!rkey) return fail(OpStatus::error, "the key was not made by this driver's unpack_key()");
  if (key.peer() != peer)
    return fail(OpStatus::error, "the key belongs to rank " + std::to_string(key.peer()));
  Op* op = ops_.acquire(OpKind::write);
  std::string why;
  if (!check_segments(local, caps_.max_segments, op, &why)) {
    retire(op);
    return fail(OpStatus::error, why);
  }
  if (offset > key.size() || op->bytes > key.size() - offset) {
    const size_t n = op->bytes;
    retire(op);
    return fail(OpStatus::error, std::to_string(n) + " bytes at offset " + std::to_string(offset) +
                                     " do not fit the remote region of " +
                                     std::to_string(key.size()) + " bytes");
  }
  op->peer = peer;
  op->cookie = cookie;
  op->silent = silent;
  if (!silent) ++user_tx_live_;
  op->dest = peers_[peer].addr;
  op->rma = fi_rma_iov{rkey->address(offset), op->bytes, rkey->key()};
  op->immediate = immediate;
  op->parts = 1;
  op->flags = FI_COMPLETION;
  // The immediate as remote CQ data, else (emulated; too long to pack) a notification after it.
  const bool notify = immediate && (emulate_ || (packed_ && op->bytes > packed_max_));
  if (immediate && !notify) {
    op->flags |= FI_REMOTE_CQ_DATA;
    op->data = cq_data(*immediate, op->bytes);
  }
  if (!notify) {
    submit_tx(op);
    return;
  }
  CtlMessage m;
  m.kind = CtlKind::notify;
  m.rank = static_cast<uint32_t>(context_.rank);
  m.size = static_cast<uint32_t>(context_.size);
  m.a = op->bytes;
  m.b = *immediate;
  if (emulate_ordered_) {
    // FI_ORDER_SAW: a send posted after the write is processed after it.
    if (!submit_tx(op)) return;
    Op* note = make_control(peer, m);
    note->parent = op;
    ++op->parts;
    submit_tx(note);
  } else {
    // Without send-after-write ordering: wait until the data is visible at the
    // target (FI_DELIVERY_COMPLETE), then notify.
    op->flags |= FI_DELIVERY_COMPLETE;
    op->follow_up = make_control(peer, m);
    op->follow_up->parent = op;
    submit_tx(op);
  }
}

Op* LfDriver::make_control(PeerId peer, const CtlMessage& m) {
  Op* op = ops_.acquire(OpKind::ctl_send);
  op->slot = slots_->acquire();
  encode(m, op->slot->data);
  op->peer = peer;
  op->tag = static_cast<Tag>(m.kind);
  op->dest = peers_[peer].addr;
  op->fi_tag = exact_tags_ ? kInternalBit | kControlTag : control_tag(context_.rank);
  op->bytes = kControlBytes;
  return op;
}

bool LfDriver::busy(int rc, const Op* op) const {
  if (rc == -FI_EAGAIN) return true;
  // Some providers (shm) report a full queue as FI_ENOMEM: a retry is worth it
  // while operations of the same direction are still to complete.
  return rc == -FI_ENOMEM && (is_rx(op) ? rx_in_flight_ : tx_in_flight_) > 0;
}

void LfDriver::note_busy(const Op* op) {
  ++eagains_;
  if (op->kind == OpKind::ctl_send && static_cast<CtlKind>(op->tag) == CtlKind::hello)
    ++peers_[op->peer].hello_busy;
}

void LfDriver::landed(Op* op) {
  if (!op->in_flight) return;
  op->in_flight = false;
  --(is_rx(op) ? rx_in_flight_ : tx_in_flight_);
}

bool LfDriver::submit_tx(Op* op) {
  if (tx_queue_.waiting(op->peer)) {
    tx_queue_.push(op);
    return true;
  }
  const int rc = issue(op);
  if (busy(rc, op)) {
    note_busy(op);
    tx_queue_.push(op);
    return true;
  }
  if (rc != 0) {
    fail_issue(op, rc);
    return false;
  }
  return true;
}

void LfDriver::submit_rx(Op* op) {
  if (!rx_queue_.empty()) {
    rx_queue_.push_back(op);
    return;
  }
  const int rc = issue(op);
  if (busy(rc, op)) {
    ++eagains_;
    rx_queue_.push_back(op);
  } else if (rc != 0) {
    fail_issue(op, rc);
  }
}

int LfDriver::issue(Op* op) {
  fid_ep* ep = fabric_->ep();
  ssize_t rc = 0;
  switch (op->kind) {
    case OpKind::send:
      if (op->use_inject) {
        const void* buf = nullptr;
        if (op->iov.size() == 1) {
          buf = op->iov[0].iov_base;
        } else if (!op->iov.empty()) {
          size_t at = 0;
          for (const auto& v : op->iov) {
            std::memcpy(inject_buf_.data() + at, v.iov_base, v.iov_len);
            at += v.iov_len;
          }
          buf = inject_buf_.data();
        }
        rc = fi_tinject(ep, buf, op->bytes, op->dest, op->fi_tag);
        if (rc == 0) {
          // Copied by libfabric: complete now (no CQ entry follows).
          finish_user(op, OpStatus::ok, op->bytes, op->peer, op->tag, {});
        }
        return static_cast<int>(rc);
      }
      if (op->iov.empty()) {
        rc = fi_tsend(ep, nullptr, 0, nullptr, op->dest, op->fi_tag, op->context());
      } else {
        rc = fi_tsendv(ep, op->iov.data(), op->desc.data(), op->iov.size(), op->dest, op->fi_tag,
                       op->context());
      }
      break;
    case OpKind::recv:
      rc = fi_trecv(ep, op->iov[0].iov_base, op->iov[0].iov_len, op->desc[0], op->dest, op->fi_tag,
                    op->ignore, op->context());
      break;
    case OpKind::write: {
      fi_msg_rma msg{};
      msg.msg_iov = op->iov.data();
      msg.desc = op->desc.data();
      msg.iov_count = op->iov.size();
      msg.addr = op->dest;
      msg.rma_iov = &op->rma;
      msg.rma_iov_count = 1;
      msg.context = op->context();
      msg.data = op->data;
      rc = fi_writemsg(ep, &msg, op->flags);
      break;
    }
    case OpKind::ctl_send:
      rc = fi_tsend(ep, op->slot->data, kControlBytes, op->slot->desc, op->dest, op->fi_tag,
                    op->context());
      break;
    case OpKind::ctl_recv:
      rc = fi_trecv(ep, op->slot->data, kSlotBytes, op->slot->desc, FI_ADDR_UNSPEC, op->fi_tag,
                    op->ignore, op->context());
      break;
    case OpKind::cqdata_recv:
      rc = fi_recv(ep, op->slot->data, kSlotBytes, op->slot->desc, FI_ADDR_UNSPEC, op->context());
      break;
  }
  if (rc == 0) {
    op->in_flight = true;
    ++(is_rx(op) ? rx_in_flight_ : tx_in_flight_);
    // A receive from a peer that is already gone: posted so that a message
    // that arrived before is still delivered, then cancelled at once.
    if (op->kind == OpKind::recv) {
      if (op->peer != kAnyPeer && op->peer != context_.rank && !book_.is_open(op->peer)) {
        cancel(op, book_.down_status(op->peer),
               prefix() + ": receive from rank " + std::to_string(op->peer) + ": the peer " +
                   (book_.down_status(op->peer) == OpStatus::peer_lost ? "was lost" : "shut down"));
      } else if (op->peer == kAnyPeer && book_.all_down()) {
        cancel(op, book_.any_status(), prefix() + ": receive from any rank: every peer is gone");
      }
    }
  }
  return static_cast<int>(rc);
}

void LfDriver::fail_issue(Op* op, int rc) {
  const std::string why = fi_error(rc);
  // A transmit refused because the peer cannot be reached (sockets answers
  // FI_ENOENT once the peer's listener is gone) counts as losing it.
  const bool tx = !is_rx(op);
  const bool lost = tx && op->peer != context_.rank && (is_peer_error(-rc) || rc == -FI_ENOENT);
  const OpStatus status = lost ? OpStatus::peer_lost : OpStatus::error;
  const PeerId peer = op->peer;
  std::string text;
  switch (op->kind) {
    case OpKind::send:
      text = prefix() + ": send to rank " + std::to_string(peer) + " failed: fi_tsend: " + why;
      finish_user(op, status, 0, peer, op->tag, text);
      break;
    case OpKind::recv:
      finish_user(op, OpStatus::error, 0, peer, op->tag,
                  prefix() + ": receive from " + rank_name(peer) + " failed: fi_trecv: " + why);
      break;
    case OpKind::write:
      text = prefix() + ": rdma_write to rank " + std::to_string(peer) +
             " failed: fi_writemsg: " + why;
      if (Op* note = std::exchange(op->follow_up, nullptr)) retire(note);
      write_part_done(op, status, text);
      break;
    case OpKind::ctl_send:
      text = prefix() + ": control message to rank " + std::to_string(peer) +
             " failed: fi_tsend: " + why;
      done_.note(text);
      if (static_cast<CtlKind>(op->tag) == CtlKind::hello) {
        peers_[peer].hello_failed = true;
        peers_[peer].hello_error = "fi_tsend: " + why;
      }
      if (Op* parent = std::exchange(op->parent, nullptr)) write_part_done(parent, status, text);
      retire(op);
      break;
    case OpKind::ctl_recv:
    case OpKind::cqdata_recv:
      done_.note(prefix() + ": internal receive failed: " + why);
      std::erase(internal_recvs_, op);
      retire(op);
      break;
  }
  if (lost && !connecting_) peer_down(peer, OpStatus::peer_lost, text);
}

void LfDriver::retry_queued() {
  // Transmits: each peer's queue in order, a busy peer blocking only itself.
  tx_queue_.drain([&](Op* op) {
    const int rc = issue(op);
    if (busy(rc, op)) {
      note_busy(op);
      return false;
    }
    if (rc != 0) fail_issue(op, rc);
    return true;
  });
  while (!rx_queue_.empty()) {
    Op* op = rx_queue_.front();
    const int rc = issue(op);
    if (busy(rc, op)) {
      ++eagains_;
      break;
    }
    rx_queue_.pop_front();
    if (rc != 0) fail_issue(op, rc);
  }
}

}  // namespace evb::libfabric
