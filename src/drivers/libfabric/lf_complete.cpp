// The libfabric driver's completion side: reading the CQ (which also drives
// progress), turning entries and error entries into Completions, control
// messages (a peer going away and the keepalive that notices it:
// lf_peer.cpp).
//
// Every user operation is reported exactly once. An operation is "retired"
// when it is reported (or, for internal ones, done with); its Op goes back to
// the pool only once libfabric has given it back too. Operations still held
// by libfabric when their peer is lost are reported at once and "abandoned":
// their late completion, if any, is swallowed.
#include <poll.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <sched.h>

#include <algorithm>

#include "drivers/common/rank_tags.hpp"
#include "drivers/libfabric/lf_driver.hpp"

namespace evb::libfabric {

namespace {
constexpr size_t kBatch = 32;
// The longest wait() sleeps on the CQ's fd before it looks again itself.
constexpr std::chrono::milliseconds kLostWakeupBound{10};
}  // namespace

void LfDriver::retire(Op* op) {
  if (op->kind == OpKind::recv) user_recvs_.erase(op);
  if (op->in_flight) {
    op->abandoned = true;  // released when libfabric hands it back
    return;
  }
  if (op->slot) slots_->release(op->slot);
  ops_.release(op);
}

void LfDriver::finish_user(Op* op, OpStatus status, size_t bytes, PeerId peer, Tag tag,
                           const std::string& why) {
  if (!op->reported) {
    op->reported = true;
    if (op->kind == OpKind::send) --user_tx_live_;
    const OpType type = op->kind == OpKind::recv ? OpType::recv : OpType::send;
    done_.push(Completion{op->cookie, type, status, peer, tag, bytes, 0});
    if (status != OpStatus::ok) done_.note(why);
  }
  retire(op);
}

void LfDriver::write_part_done(Op* w, OpStatus status, const std::string& why) {
  if (w->reported) return;
  if (status != OpStatus::ok && w->status == OpStatus::ok) {
    w->status = status;
    w->error = why;
  }
  if (--w->parts > 0) return;
  w->reported = true;
  if (w->silent) {
    if (w->status != OpStatus::ok) probe_failed_ = true;
    retire(w);
    return;
  }
  --user_tx_live_;
  done_.push(Completion{w->cookie, OpType::rdma_write, w->status, w->peer, 0,
                        w->status == OpStatus::ok ? w->bytes : 0, w->immediate.value_or(0)});
  if (w->status != OpStatus::ok) done_.note(w->error);
  retire(w);
}

void LfDriver::remote_write(PeerId peer, size_t bytes, uint32_t immediate) {
  if (probe_pending_ && immediate == kProbeImmediate &&
      (peer == context_.rank || peer == kAnyPeer)) {
    probe_pending_ = false;  // the length probe, not the caller's
    probe_bytes_ = bytes;
    return;
  }
  done_.remote_write(peer, bytes, immediate);
}

void LfDriver::cq_data_arrived(fi_addr_t src, size_t len, uint64_t data) {
  // Packed data has its upper 32 bits set (a plain immediate is 32 bits), so
  // a rank decodes it whatever its own probe decided; the one packed form
  // that reads as plain (rank 0, zero bytes) means the same either way.
  if (!wide_cq_data_ || (data >> 32) == 0)
    return remote_write(writer_of(src), len, static_cast<uint32_t>(data));
  const CqDataPacking::Unpacked u = packing_.unpack(data);
  const PeerId from =
      u.writer < static_cast<uint64_t>(context_.size) ? static_cast<PeerId>(u.writer) : kAnyPeer;
  remote_write(from, static_cast<size_t>(u.bytes), u.immediate);
}

PeerId LfDriver::writer_of(fi_addr_t src) const {
  // FI_SOURCE for remote CQ data: tcp;ofi_rxm and udp;ofi_rxd report address
  // 0 whoever wrote, which is this rank's own AV entry (inserted first), so
  // this rank as the source means "unknown".
  const PeerId p = rank_of(src);
  return p == context_.rank ? kAnyPeer : p;
}

PeerId LfDriver::rank_of(fi_addr_t addr) const {
  if (addr == FI_ADDR_NOTAVAIL || addr == FI_ADDR_UNSPEC) return kAnyPeer;
  auto it = by_addr_.find(addr);
  return it == by_addr_.end() ? kAnyPeer : it->second;
}

void LfDriver::repost(Op* op) {
  if (closing_) {
    std::erase(internal_recvs_, op);
    retire(op);
    return;
  }
  submit_rx(op);
}

void LfDriver::on_entry(const fi_cq_tagged_entry& e, fi_addr_t src) {
  // Remote CQ data of a peer's write: no posted operation behind it, unless
  // the provider consumes receives for it (FI_RX_CQ_DATA). FI_REMOTE_WRITE
  // (a target-side flag) decides, not op_context alone: shm (1.17) leaves
  // garbage there (0x1) for gathered writes between processes. (The writer's
  // own completion may carry FI_REMOTE_CQ_DATA too: sockets sets it.)
  if (!e.op_context || (!rx_cq_data_ && (e.flags & FI_REMOTE_WRITE))) {
    if (e.flags & FI_REMOTE_CQ_DATA) cq_data_arrived(src, e.len, e.data);
    return;
  }
  Op* op = Op::from_context(e.op_context);
  landed(op);
  if (op->abandoned) return retire(op);
  switch (op->kind) {
    case OpKind::send:
      finish_user(op, OpStatus::ok, op->bytes, op->peer, op->tag, {});
      break;
    case OpKind::recv: {
      const PeerId from = op->peer != kAnyPeer ? op->peer : sender_of(e.tag, src);
      heard_from(from);
      finish_user(op, OpStatus::ok, e.len, from, op->tag, {});
      break;
    }
    case OpKind::write:
      if (Op* note = std::exchange(op->follow_up, nullptr)) {
        // Delivery-complete write: now the notification may go.
        ++op->parts;
        submit_tx(note);
      }
      write_part_done(op, OpStatus::ok, {});
      break;
    case OpKind::ctl_send:
      if (static_cast<CtlKind>(op->tag) == CtlKind::hello) peers_[op->peer].hello_sent = true;
      if (Op* parent = std::exchange(op->parent, nullptr))
        write_part_done(parent, OpStatus::ok, {});
      retire(op);
      break;
    case OpKind::ctl_recv:
      on_control(op, e.len, sender_of(e.tag, src));
      repost(op);
      break;
    case OpKind::cqdata_recv:
      if (e.flags & FI_REMOTE_CQ_DATA) cq_data_arrived(src, e.len, e.data);
      repost(op);
      break;
  }
}

PeerId LfDriver::sender_of(uint64_t fi_tag, fi_addr_t src) const {
  return exact_tags_ ? rank_of(src) : tag_sender(fi_tag);
}

void LfDriver::on_control(Op* op, size_t len, PeerId from) {
  auto m = decode(std::span<const std::byte>(op->slot->data, std::min(len, kSlotBytes)));
  if (!m || !valid_rank(from) || m->rank != static_cast<uint32_t>(from)) {
    done_.note(prefix() + ": ignored a malformed control message (" + std::to_string(len) +
               " bytes, tag rank " + std::to_string(from) + ")");
    return;
  }
  heard_from(from);
  switch (m->kind) {
    case CtlKind::ping:
      if (book_.is_open(from)) {
        CtlMessage pong = *m;
        pong.kind = CtlKind::pong;
        pong.rank = static_cast<uint32_t>(context_.rank);
        pong.size = static_cast<uint32_t>(context_.size);
        submit_tx(make_control(from, pong));
      }
      break;
    case CtlKind::pong:
      break;  // heard_from() above did the work
    case CtlKind::hello:
      book_.hello(from, m->a, m->size);
      break;
    case CtlKind::notify:
      remote_write(from, static_cast<size_t>(m->a), static_cast<uint32_t>(m->b));
      break;
    case CtlKind::bye:
      if (book_.is_open(from))
        peer_down(from, OpStatus::peer_closed,
                  prefix() + ": rank " + std::to_string(from) + " shut down");
      break;
  }
}

void LfDriver::on_error(const fi_cq_err_entry& e, const std::string& text) {
  if (!e.op_context) {
    done_.note(prefix() + ": error completion without an operation: " + text);
    return;
  }
  Op* op = Op::from_context(e.op_context);
  landed(op);
  if (op->abandoned) return retire(op);
  // Positive per the spec; shm reports some as negative.
  const int err = e.err < 0 ? -e.err : e.err;
  const bool cancelled = err == FI_ECANCELED;
  const OpStatus tx_status = is_peer_error(err) ? OpStatus::peer_lost : OpStatus::error;
  const PeerId peer = op->peer;
  switch (op->kind) {
    case OpKind::recv: {
      if (err == FI_ETRUNC) {
        // (exact tags: an error entry has no source, so the sender of a
        // truncated any-peer message is not known)
        const PeerId from = peer != kAnyPeer ? peer : sender_of(e.tag, FI_ADDR_NOTAVAIL);
        // The spec says len = bytes placed and olen = bytes that did not fit;
        // some providers (ofi_rxm) put the full message length into len.
        const size_t full = std::max(e.len > op->bytes ? e.len : e.len + e.olen, op->bytes);
        finish_user(op, OpStatus::truncated, full, from, op->tag,
                    prefix() + ": receive from " + rank_name(from) + " (tag " +
                        std::to_string(op->tag) + "): message of " + std::to_string(full) +
                        " bytes truncated to " + std::to_string(op->bytes));
      } else if (cancelled && op->cancelling) {
        const std::string why = op->error;
        finish_user(op, op->cancel_status, 0, peer, op->tag, why);
      } else {
        finish_user(op, OpStatus::error, 0, peer, op->tag,
                    prefix() + ": receive from " + rank_name(peer) + " failed: " + text);
      }
      break;
    }
    case OpKind::send: {
      const std::string why =
          prefix() + ": send to rank " + std::to_string(peer) + " failed: " + text;
      finish_user(op, tx_status, 0, peer, op->tag, why);
      if (tx_status == OpStatus::peer_lost) peer_down(peer, tx_status, why);
      break;
    }
    case OpKind::write: {
      const std::string why =
          prefix() + ": rdma_write to rank " + std::to_string(peer) + " failed: " + text;
      if (Op* note = std::exchange(op->follow_up, nullptr)) retire(note);
      write_part_done(op, tx_status, why);
      if (tx_status == OpStatus::peer_lost) peer_down(peer, tx_status, why);
      break;
    }
    case OpKind::ctl_send: {
      const std::string why =
          prefix() + ": control message to rank " + std::to_string(peer) + " failed: " + text;
      const bool hello = static_cast<CtlKind>(op->tag) == CtlKind::hello;
      done_.note(why);
      if (hello) {
        peers_[peer].hello_failed = true;
        peers_[peer].hello_error = text;
      }
      if (Op* parent = std::exchange(op->parent, nullptr)) write_part_done(parent, tx_status, why);
      retire(op);
      if (tx_status == OpStatus::peer_lost && !connecting_ && !hello)
        peer_down(peer, tx_status, why);
      break;
    }
    case OpKind::ctl_recv:
    case OpKind::cqdata_recv:
      if (!cancelled && !closing_) {
        done_.note(prefix() + ": internal receive failed: " + text);
        // A receive that keeps failing is not reposted forever.
        if (++internal_errors_ < 1000) {
          submit_rx(op);
          break;
        }
      }
      std::erase(internal_recvs_, op);
      retire(op);
      break;
  }
}

void LfDriver::read_error() {
  fi_cq_err_entry e{};
  const ssize_t rc = fi_cq_readerr(fabric_->cq(), &e, 0);
  if (rc != 1) return;
  std::string text = fi_strerror(e.err < 0 ? -e.err : e.err);
  char buf[256] = {};
  const char* prov = fi_cq_strerror(fabric_->cq(), e.prov_errno, e.err_data, buf, sizeof buf);
  if (prov && *prov && text != prov) text += std::string(" (") + prov + ")";
  on_error(e, text);
}

size_t LfDriver::read_cq() {
  fi_cq_tagged_entry entries[kBatch];
  fi_addr_t src[kBatch];
  fid_cq* cq = fabric_->cq();
  const ssize_t n =
      source_ ? fi_cq_readfrom(cq, entries, kBatch, src) : fi_cq_read(cq, entries, kBatch);
  if (n > 0) {
    for (ssize_t i = 0; i < n; ++i) on_entry(entries[i], source_ ? src[i] : FI_ADDR_NOTAVAIL);
    return static_cast<size_t>(n);
  }
  if (n == -FI_EAVAIL) {
    read_error();
    return 1;
  }
  if (n != -FI_EAGAIN)
    done_.note(prefix() + ": fi_cq_read failed: " + fi_error(static_cast<int>(n)));
  return 0;
}

void LfDriver::progress() {
  if (!fabric_ || !fabric_->open()) return;
  const bool alive_checks = connected_ && options_.keepalive_timeout.count() > 0;
  if (alive_checks) now_ = std::chrono::steady_clock::now();
  // A few batches per call: enough to drain bursts, bounded for fairness.
  for (int round = 0; round < 8; ++round) {
    if (read_cq() < kBatch) break;
  }
  if (!tx_queue_.empty() || !rx_queue_.empty()) retry_queued();
  if (alive_checks && now_ >= next_keepalive_) keepalive();
}

size_t LfDriver::poll(std::span<Completion> out) {
  if (done_.size() < out.size()) progress();
  return done_.drain(out);
}

void LfDriver::wait(std::chrono::microseconds timeout) {
  if (!done_.empty() || !caps_.can_block || shut_down_ || !fabric_->open()) return;
  progress();
  if (!done_.empty()) return;
  int64_t ms = (timeout.count() + 999) / 1000;
  // Queued operations need progress, not sleep: keep the nap short.
  if (!tx_queue_.empty() || !rx_queue_.empty()) ms = std::min<int64_t>(ms, 1);
  if (ms <= 0) return;
  // poll(2) on the CQ's fd once fi_trywait says nothing is pending, so the
  // timeout is the kernel's, but never longer than kLostWakeupBound: the fd
  // of tcp;ofi_rxm can miss a wake-up (ofiwg/libfabric#7613; seen here as a
  // wait(10 min) that outlived its message), and a missed one must cost a
  // few milliseconds, not the whole timeout. The caller sees an early return,
  // which wait() may always do.
  const int nap = static_cast<int>(std::min<int64_t>(ms, kLostWakeupBound.count()));
  fid* fids[1] = {&fabric_->cq()->fid};
  if (fi_trywait(fabric_->fabric(), fids, 1) == FI_SUCCESS) {
    pollfd p{fabric_->wait_fd(), POLLIN, 0};
    (void)::poll(&p, 1, nap);
  } else {
    // The provider has work it cannot sleep on (FI_EAGAIN): give the core to
    // the peer it waits for instead of spinning (the ucx driver's case,
    // docs/drivers/ucx.md "Blocking").
    sched_yield();
  }
  progress();
}

// ---------------------------------------------------------------- failures

void LfDriver::cancel(Op* op, OpStatus status, const std::string& why) {
  if (!op->in_flight) {
    // Still in our queue: libfabric never saw it.
    std::erase(rx_queue_, op);
    if (op->kind == OpKind::recv) {
      finish_user(op, status, 0, op->peer, op->tag, why);
    } else {
      std::erase(internal_recvs_, op);
      retire(op);
    }
    return;
  }
  if (op->cancelling) return;
  op->cancelling = true;
  op->cancel_status = status;
  op->error = why;
  (void)fi_cancel(&fabric_->ep()->fid, op->context());
}

}  // namespace evb::libfabric
