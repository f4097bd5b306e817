// The verbs driver's completion side: polling the completion queue without
// blocking, sleeping on its channel in wait(), turning work completions into
// evbench completions (send buffers and records retired through the send
// queue's accounting, received SENDs through the tag matcher, writes with
// immediate into remote_write) and returning credits. A failed work
// completion or malformed message puts the peer down (verbs_peer.cpp).
#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "drivers/verbs/verbs_driver.hpp"
#include "drivers/verbs/verbs_errors.hpp"
#include "drivers/verbs/verbs_wc.hpp"

namespace evb::verbs {

const char* VerbsDriver::what_of(WrKind kind) {
  switch (kind) {
    case WrKind::write:
      return "rdma_write";
    case WrKind::credit:
      return "credit write (credit return or keepalive)";
    case WrKind::hello:
      return "hello";
    case WrKind::bye:
      return "bye";
    case WrKind::chunk:
    case WrKind::last_chunk:
      break;
  }
  return "send";
}

size_t VerbsDriver::poll(std::span<Completion> out) {
  progress();
  return done_.drain(out);
}

void VerbsDriver::wait(std::chrono::microseconds timeout) {
  if (!done_.empty()) return;
  // Credit returns are plain writes and raise no event: while an operation
  // waits for credits, keep polling instead of sleeping, but give up the
  // core first, as the credits come from a peer that may need it (on a host
  // with fewer cores than ranks a wait() that spins starves it: the ucx
  // driver's ucx/sm send did that, DriverContract.BlockMovesDataLikeYield).
  for (PeerId peer : active_) {
    if (!peers_[peer].held.empty()) {
      sched_yield();
      return;
    }
  }
  if (ibv_req_notify_cq(device_->cq(), 0) != 0) return;
  // What completed before the CQ was armed raises no event: look once more.
  progress();
  if (!done_.empty()) return;
  pollfd pfd{device_->channel()->fd, POLLIN, 0};
  const auto ms = std::chrono::ceil<std::chrono::milliseconds>(timeout).count();
  if (::poll(&pfd, 1, static_cast<int>(std::clamp<int64_t>(ms, 0, 1 << 30))) > 0) {
    ibv_cq* cq = nullptr;
    void* ctx = nullptr;
    if (ibv_get_cq_event(device_->channel(), &cq, &ctx) == 0) device_->event_taken();
  }
}

void VerbsDriver::progress() {
  ibv_wc wcs[kPollBatch];
  for (;;) {
    const int n = ibv_poll_cq(device_->cq(), kPollBatch, wcs);
    if (n <= 0) break;
    for (int i = 0; i < n; ++i) {
      if (is_recv(wcs[i].wr_id))
        on_recv_wc(wcs[i]);
      else
        on_send_wc(wcs[i]);
    }
    if (n < kPollBatch) break;
  }
  if (!connected_) {
    for (PeerId peer : active_) {
      if (peers_[peer].rearm) rearm(peer);
    }
  }
  // Keepalive: a reliable connection reports a dead peer only through a
  // failed work request, so idle peers get their credit word rewritten (an
  // idempotent RDMA WRITE) every keepalive_interval.
  if (connected_ && options_.keepalive_interval.count() > 0) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_keepalive_) {
      next_keepalive_ = now + options_.keepalive_interval;
      for (PeerId peer : active_) {
        if (book_.state(peer) == PeerState::open) peers_[peer].return_due = true;
      }
    }
  }
  for (PeerId peer : active_) {
    const Peer& p = peers_[peer];
    if (!p.held.empty() || p.return_due) pump(peer);
  }
}

PeerId VerbsDriver::peer_of(uint32_t qp_num) const {
  auto it = qp_peer_.find(qp_num);
  return it == qp_peer_.end() ? kAnyPeer : it->second;
}

void VerbsDriver::on_send_wc(const ibv_wc& wc) {
  const uint32_t index = wr_index(wc.wr_id);
  if (index >= records_.size()) return;
  const WrRecord& r = records_[index];
  // A record given up already (its queue pair flushed) and maybe reused.
  if (!r.live || r.generation != wr_generation(wc.wr_id)) return;
  const PeerId peer = r.peer;
  Peer& p = peers_[peer];
  retired_.clear();
  if (wc.status != IBV_WC_SUCCESS && may_rearm(peer, wc.status)) {
    // The peer's queue pair was not ready for the hello yet: try again.
    p.sq->drain(retired_);
    for (uint64_t id : retired_) finish_record(wr_index(id), OpStatus::peer_lost);
    p.rearm = true;
    return;
  }
  if (wc.status != IBV_WC_SUCCESS) {
    const WcError e = wc_error(wc.status, what_of(r.kind), peer);
    done_.note(prefix() + ": " + e.message);
    p.sq->drain(retired_);
    for (uint64_t id : retired_) {
      const uint32_t i = wr_index(id);
      finish_record(i, id == wc.wr_id ? e.status : OpStatus::peer_lost);
    }
    peer_down(peer, OpStatus::peer_lost, done_.last_error());
    return;
  }
  if (!p.sq->complete(wc.wr_id, retired_)) return;
  for (uint64_t id : retired_) finish_record(wr_index(id), OpStatus::ok);
}

// Retires one send work request: its buffer back to the pool, and the
// completion its caller waits for (the last SEND of a message, a write).
void VerbsDriver::finish_record(uint32_t index, OpStatus status) {
  const WrRecord r = records_[index];
  free_record(index);
  Completion c;
  c.cookie = r.cookie;
  c.peer = r.peer;
  c.tag = r.tag;
  c.status = status;
  c.bytes = status == OpStatus::ok ? r.bytes : 0;
  switch (r.kind) {
    case WrKind::last_chunk:
      c.type = OpType::send;
      done_.push(c);
      break;
    case WrKind::write:
      c.type = OpType::rdma_write;
      c.tag = 0;
      done_.push(c);
      break;
    case WrKind::hello:
    case WrKind::bye:
      if (control_sends_ > 0) --control_sends_;
      break;
    case WrKind::chunk:
    case WrKind::credit:
      break;
  }
}

void VerbsDriver::on_recv_wc(const ibv_wc& wc) {
  const uint64_t buffer = wc.wr_id & ~kRecvBit;
  if (buffer >= recv_owner_.size()) return;
  const PeerId peer = peer_of(wc.qp_num);
  if (wc.status != IBV_WC_SUCCESS) {
    // Flushed receives of a queue pair gone to the error state, or a
    // receive that failed: either way that peer is down.
    if (peer == kAnyPeer) return;
    // While connecting, the send side decides (a rearm flushes receives).
    if (!connected_ && wc.status == IBV_WC_WR_FLUSH_ERR &&
        book_.state(peer) == PeerState::connecting)
      return;
    const WcError e = wc_error(wc.status, "recv", peer);
    if (wc.status != IBV_WC_WR_FLUSH_ERR || book_.state(peer) == PeerState::open)
      done_.note(prefix() + ": " + e.message);
    peer_down(peer, OpStatus::peer_lost, done_.last_error());
    return;
  }
  const uint32_t buf = static_cast<uint32_t>(buffer);
  if (peer == kAnyPeer) {  // cannot happen: every queue pair is ours
    repost(recv_owner_[buf], buf);
    return;
  }
  if (book_.state(peer) == PeerState::lost) {
    // Arrived before the peer was given up: dropped, like the peer. A
    // shared queue's buffer serves the other peers again.
    if (device_->srq()) repost(kAnyPeer, buf);
    return;
  }
  const RecvEvent ev = classify_recv(wc, peer, kBufferBytes);
  switch (ev.kind) {
    case RecvKind::remote_write:
      done_.push(ev.completion);
      break;
    case RecvKind::message:
      on_message(peer, std::span<const std::byte>(recv_buffer(buf), ev.bytes));
      break;
    case RecvKind::foreign:
      protocol_error(peer, "sent something that is not a verbs-driver message");
      break;
  }
  // The buffer goes back; its credit returns to the peer in batches.
  Peer& p = peers_[peer];
  if (book_.state(peer) == PeerState::lost && !device_->srq()) return;
  repost(recv_owner_[buf], buf);
  if (!book_.up(peer)) return;
  p.returns->reposted();
  if (const std::optional<size_t> n = p.returns->due()) {
    const size_t mine = static_cast<size_t>(context_.size) + static_cast<size_t>(peer);
    std::atomic_ref<uint32_t> word(credit_words_[mine]);
    word.store(word.load(std::memory_order_relaxed) + static_cast<uint32_t>(*n),
               std::memory_order_release);
    p.return_due = true;
  }
}

void VerbsDriver::on_message(PeerId peer, std::span<const std::byte> bytes) {
  Peer& p = peers_[peer];
  const std::optional<WireHeader> h = decode_header(bytes);
  if (!h) {
    protocol_error(peer, "sent a malformed message");
    return;
  }
  const std::span<const std::byte> payload = bytes.subspan(kHeaderBytes);
  switch (h->kind) {
    case WireKind::hello: {
      if (book_.hello_in(peer)) {
        protocol_error(peer, "said hello twice");
        return;
      }
      const HelloBody b = decode_hello_body(bytes);
      book_.hello(peer, h->a, b.ranks);
      p.credit_address = b.credit_address;
      p.credit_rkey = b.credit_rkey;
      return;
    }
    case WireKind::bye:
      if (p.receiving) {
        protocol_error(peer, "said bye in the middle of a message");
        return;
      }
      p.bye = true;
      peer_down(peer, OpStatus::peer_closed, prefix() + ": " + rank_name(peer) + " shut down");
      return;
    case WireKind::data_first: {
      if (p.receiving || !book_.hello_in(peer)) {
        protocol_error(peer, "started a message out of order");
        return;
      }
      if (h->a > caps_.max_message || payload.size() > h->a ||
          (payload.size() < h->a && payload.size() != chunk_payload(kBufferBytes))) {
        protocol_error(peer, "sent a message whose length does not add up");
        return;
      }
      p.target = matcher_.begin_message(peer, h->tag, h->a);
      if (p.target.refused) {
        p.target = {};
        protocol_error(peer,
                       "sent more unexpected messages than this rank buffers (nobody posted "
                       "receives for them)");
        return;
      }
      p.rtag = h->tag;
      p.rlength = h->a;
      p.rgot = 0;
      p.receiving = true;
      break;
    }
    case WireKind::data_more:
      if (!p.receiving || payload.empty() || payload.size() > p.rlength - p.rgot ||
          (payload.size() < p.rlength - p.rgot && payload.size() != chunk_payload(kBufferBytes))) {
        protocol_error(peer, "continued a message that does not add up");
        return;
      }
      break;
  }
  // Payload into the receive (or unexpected) buffer; beyond its capacity
  // it is dropped (truncation, reported by the matcher).
  if (p.rgot < p.target.capacity) {
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(payload.size(), p.target.capacity - p.rgot));
    std::memcpy(p.target.data + p.rgot, payload.data(), n);
  }
  p.rgot += payload.size();
  if (p.rgot == p.rlength) {
    p.receiving = false;
    const RecvTarget t = p.target;
    p.target = {};
    matcher_.end_message(peer, p.rtag, t, p.rlength, OpStatus::ok);
  }
}

}  // namespace evb::verbs
