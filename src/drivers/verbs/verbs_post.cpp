// The verbs driver's data path: post_send / post_recv / rdma_write, the
// per-peer queue of held-back operations, and the posting of SENDs, RDMA
// WRITEs and credit returns within the send queue, credits and send buffers
// available (back-pressure instead of overflow).
#include <arpa/inet.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "drivers/verbs/verbs_driver.hpp"

namespace evb::verbs {

OpStatus VerbsDriver::refuse_status(PeerId peer) const {
  if (!valid_rank(peer) || peer == context_.rank) return OpStatus::error;
  switch (book_.state(peer)) {
    case PeerState::open:
    case PeerState::connecting:
      return OpStatus::ok;
    case PeerState::closed:
      return OpStatus::peer_closed;
    case PeerState::lost:
      return OpStatus::peer_lost;
    case PeerState::none:
      break;
  }
  return OpStatus::error;
}

void VerbsDriver::post_send(PeerId peer, Tag tag, std::span<const Segment> segments,
                            uint64_t cookie) {
  uint64_t bytes = 0;
  for (const Segment& s : segments) bytes += s.size;
  const OpStatus st = refuse_status(peer);
  if (st != OpStatus::ok) {
    done_.fail(OpType::send, peer, tag, cookie, st,
               prefix() + ": send to " + rank_name(peer) +
                   (st == OpStatus::error ? ", which is not a connected peer" : ", which is gone"));
    return;
  }
  if (bytes > caps_.max_message) {
    done_.fail(OpType::send, peer, tag, cookie, OpStatus::error,
               prefix() + ": send of " + std::to_string(bytes) + " bytes to " + rank_name(peer) +
                   " exceeds max_message " + std::to_string(caps_.max_message));
    return;
  }
  Held h;
  h.kind = Held::Kind::send;
  h.cookie = cookie;
  h.tag = tag;
  h.segments.assign(segments.begin(), segments.end());
  h.bytes = bytes;
  hold(peer, std::move(h));
}

void VerbsDriver::post_recv(PeerId peer, Tag tag, void* buffer, size_t size,
                            const Registration* /*reg: received bytes are copied*/,
                            uint64_t cookie) {
  auto* into = static_cast<std::byte*>(buffer);
  const PostedRecv r{.peer = peer, .tag = tag, .buffer = into, .size = size, .cookie = cookie};
  // A message that arrived before its sender left is still delivered.
  if (matcher_.match_unexpected(r)) return;
  if (peer != kAnyPeer) {
    const OpStatus st = refuse_status(peer);
    if (st != OpStatus::ok) {
      done_.fail(
          OpType::recv, peer, tag, cookie, st,
          prefix() + ": receive from " + rank_name(peer) +
              (st == OpStatus::error ? ", which is not a connected peer" : ", which is gone"));
      return;
    }
  } else if (book_.all_down()) {
    const OpStatus st = book_.any_status();
    done_.fail(OpType::recv, kAnyPeer, tag, cookie, st,
               prefix() + ": receive from any rank, but no peer is left");
    return;
  }
  matcher_.add_posted(r);
}

void VerbsDriver::rdma_write(PeerId peer, std::span<const Segment> local, const RemoteKey& key,
                             uint64_t offset, std::optional<uint32_t> immediate, uint64_t cookie) {
  const OpStatus st = refuse_status(peer);
  if (st != OpStatus::ok) {
    done_.fail(OpType::rdma_write, peer, 0, cookie, st,
               prefix() + ": rdma_write to " + rank_name(peer) +
                   (st == OpStatus::error ? ", which is not a connected peer" : ", which is gone"));
    return;
  }
  const auto* remote = dynamic_cast<const VerbsRemoteKey*>(&key);
  if (!remote || key.peer() != peer) {
    done_.fail(OpType::rdma_write, peer, 0, cookie, OpStatus::error,
               prefix() + ": rdma_write to " + rank_name(peer) +
                   " with a key that is not this driver's key of that rank");
    return;
  }
  // Every check before anything is held: a refused write completes now.
  const SgeList sg = build_sges(local, sges_, device_->max_sge(), caps_.max_message);
  ibv_send_wr probe{};
  std::optional<std::string> bad;
  if (sg.error.empty())
    bad = make_write(0, std::span(sges_.data(), sg.count), sg.bytes, remote->region(), offset,
                     immediate, true, probe);
  if (!sg.error.empty() || bad) {
    done_.fail(OpType::rdma_write, peer, 0, cookie, OpStatus::error,
               prefix() + ": rdma_write to " + rank_name(peer) + ": " + (bad ? *bad : sg.error));
    return;
  }
  Held h;
  h.kind = Held::Kind::write;
  h.cookie = cookie;
  h.segments.assign(local.begin(), local.end());
  h.bytes = sg.bytes;
  h.remote = remote->region();
  h.offset = offset;
  h.immediate = immediate;
  hold(peer, std::move(h));
}

void VerbsDriver::hold(PeerId peer, Held h) {
  peers_[peer].held.push_back(std::move(h));
  pump(peer);
}

// Hands what it can to the queue pair, oldest first; stops at the first
// operation that lacks a send slot, a credit or a send buffer.
void VerbsDriver::pump(PeerId peer) {
  Peer& p = peers_[peer];
  if (book_.state(peer) == PeerState::none || book_.state(peer) == PeerState::lost) return;
  if (p.return_due && book_.up(peer) && p.credit_rkey != 0 && !p.sq->full())
    post_credit_return(peer);
  while (!p.held.empty()) {
    Held& h = p.held.front();
    bool done = false;
    switch (h.kind) {
      case Held::Kind::send:
        if (!post_chunk(peer, h)) return;
        done = h.sent == h.bytes && h.started;
        break;
      case Held::Kind::write:
        if (!post_write(peer, h)) return;
        done = true;
        break;
      case Held::Kind::hello:
      case Held::Kind::bye:
        if (!post_control(peer, h)) return;
        done = true;
        break;
    }
    if (book_.state(peer) == PeerState::lost) return;  // the post failed; held operations are gone
    if (done) p.held.pop_front();
  }
}

bool VerbsDriver::take_credit(PeerId peer) {
  Peer& p = peers_[peer];
  if (p.credits->take()) return true;
  // None left: read the running count the peer writes into our word.
  const uint32_t now = std::atomic_ref<uint32_t>(credit_words_[static_cast<size_t>(peer)])
                           .load(std::memory_order_acquire);
  const uint64_t owed = options_.command_credits - p.credits->available();
  const std::optional<uint32_t> d = credit_delta(now, p.credits_seen, owed);
  if (!d) {
    protocol_error(peer, "returned more command credits than it was given");
    return false;
  }
  p.credits_seen = now;
  p.credits->give_back(*d);
  return p.credits->take();
}

uint32_t VerbsDriver::new_record(WrKind kind, PeerId peer) {
  if (free_records_.empty()) {
    records_.emplace_back();
    free_records_.push_back(static_cast<uint32_t>(records_.size() - 1));
  }
  const uint32_t i = free_records_.back();
  free_records_.pop_back();
  WrRecord& r = records_[i];
  const uint32_t gen = r.generation;
  r = WrRecord{};
  r.generation = gen;
  r.live = true;
  r.kind = kind;
  r.peer = peer;
  return i;
}

void VerbsDriver::free_record(uint32_t index) {
  WrRecord& r = records_[index];
  if (r.buffer >= 0) free_send_.push_back(r.buffer);
  r.buffer = -1;
  r.live = false;
  r.generation = (r.generation + 1) & 0x7FFFFFFFu;
  free_records_.push_back(index);
}

// Posts `wr` (its wr_id set here) and records it in the peer's send queue.
// A refused post means the queue pair is unusable: the peer goes down.
bool VerbsDriver::post(PeerId peer, ibv_send_wr& wr, uint32_t record, bool signalled) {
  Peer& p = peers_[peer];
  wr.wr_id = make_wr_id(record, records_[record].generation);
  wr.next = nullptr;
  ibv_send_wr* bad = nullptr;
  const int rc = ibv_post_send(p.qp, &wr, &bad);
  if (rc != 0) {
    finish_record(record, OpStatus::error);
    done_.note(prefix() + ": ibv_post_send to " + rank_name(peer) + ": " + std::strerror(rc));
    peer_down(peer, OpStatus::peer_lost, done_.last_error());
    return false;
  }
  p.sq->post(wr.wr_id, signalled);
  return true;
}

bool VerbsDriver::post_credit_return(PeerId peer) {
  Peer& p = peers_[peer];
  const size_t mine = static_cast<size_t>(context_.size) + static_cast<size_t>(peer);
  ibv_sge sge{reinterpret_cast<uintptr_t>(&credit_words_[mine]), sizeof(uint32_t),
              credit_mr_->keys().lkey};
  const RemoteRegion region{p.credit_address, p.credit_rkey,
                            static_cast<uint64_t>(context_.size) * sizeof(uint32_t)};
  const bool signalled = p.sq->must_signal(false);
  ibv_send_wr wr{};
  const uint64_t offset = static_cast<uint64_t>(context_.rank) * sizeof(uint32_t);
  if (make_write(0, std::span(&sge, 1), sizeof(uint32_t), region, offset, std::nullopt, signalled,
                 wr))
    return false;  // cannot happen: the region has a word per rank
  if (sizeof(uint32_t) <= device_->max_inline()) wr.send_flags |= IBV_SEND_INLINE;
  const uint32_t rec = new_record(WrKind::credit, peer);
  if (!post(peer, wr, rec, signalled)) return false;
  p.return_due = false;
  return true;
}

bool VerbsDriver::post_chunk(PeerId peer, Held& h) {
  Peer& p = peers_[peer];
  const size_t room = chunk_payload(kBufferBytes);
  while (!h.started || h.sent < h.bytes) {
    if (p.sq->full() || free_send_.empty()) return false;
    if (!take_credit(peer)) return false;
    const int32_t buf = free_send_.back();
    free_send_.pop_back();
    std::byte* out = send_buffer(buf);
    const size_t n = static_cast<size_t>(std::min<uint64_t>(room, h.bytes - h.sent));
    encode_header(h.started ? WireHeader{WireKind::data_more, 0, 0}
                            : WireHeader{WireKind::data_first, h.tag, h.bytes},
                  out);
    gather_copy(h.segments, h.sent, out + kHeaderBytes, n);
    const bool last = h.sent + n == h.bytes;
    // Every SEND is signalled: its completion frees its send buffer at
    // once. (Left unsignalled, the buffers of a message stalled for credits
    // would wait for a later signalled request on that queue pair, and
    // enough stalled peers could hold every buffer.)
    const bool signalled = true;
    const uint32_t rec = new_record(last ? WrKind::last_chunk : WrKind::chunk, peer);
    WrRecord& r = records_[rec];
    r.buffer = buf;
    r.cookie = h.cookie;
    r.tag = h.tag;
    r.bytes = h.bytes;
    ibv_sge sge{reinterpret_cast<uintptr_t>(out), static_cast<uint32_t>(kHeaderBytes + n),
                send_mr_->keys().lkey};
    ibv_send_wr wr =
        make_send(0, std::span(&sge, 1), kHeaderBytes + n, signalled, device_->max_inline());
    if (!post(peer, wr, rec, signalled)) return false;
    h.sent += n;
    h.started = true;
  }
  return true;
}

bool VerbsDriver::post_write(PeerId peer, Held& h) {
  Peer& p = peers_[peer];
  if (p.sq->full()) return false;
  const SgeList sg = build_sges(h.segments, sges_, device_->max_sge(), caps_.max_message);
  ibv_send_wr wr{};
  const std::optional<std::string> bad =
      sg.error.empty() ? make_write(0, std::span(sges_.data(), sg.count), sg.bytes, h.remote,
                                    h.offset, h.immediate, true, wr)
                       : std::optional<std::string>(sg.error);
  if (bad) {  // checked by rdma_write already; nothing can have changed since
    done_.fail(OpType::rdma_write, peer, 0, h.cookie, OpStatus::error,
               prefix() + ": rdma_write to " + rank_name(peer) + ": " + *bad);
    return true;
  }
  // A write with immediate consumes a receive at the peer: it needs a credit.
  if (h.immediate && !take_credit(peer)) return false;
  const uint32_t rec = new_record(WrKind::write, peer);
  records_[rec].cookie = h.cookie;
  records_[rec].bytes = h.bytes;
  return post(peer, wr, rec, true);
}

bool VerbsDriver::post_control(PeerId peer, Held& h) {
  Peer& p = peers_[peer];
  if (p.sq->full() || free_send_.empty()) return false;
  if (!take_credit(peer)) return false;
  const int32_t buf = free_send_.back();
  free_send_.pop_back();
  std::byte* out = send_buffer(buf);
  size_t len = kHeaderBytes;
  WrKind kind = WrKind::bye;
  if (h.kind == Held::Kind::hello) {
    const uint64_t words = reinterpret_cast<uintptr_t>(credit_words_.get());
    encode_hello(book_.run(),
                 HelloBody{words, credit_mr_->keys().rkey, static_cast<uint32_t>(context_.size)},
                 out);
    len = kHelloBytes;
    kind = WrKind::hello;
  } else {
    encode_header(WireHeader{WireKind::bye, 0, 0}, out);
  }
  const uint32_t rec = new_record(kind, peer);
  records_[rec].buffer = buf;
  ibv_sge sge{reinterpret_cast<uintptr_t>(out), static_cast<uint32_t>(len), send_mr_->keys().lkey};
  ibv_send_wr wr = make_send(0, std::span(&sge, 1), len, true, device_->max_inline());
  ++control_sends_;
  return post(peer, wr, rec, true);
}

void VerbsDriver::repost(PeerId owner, uint32_t buffer) {
  ibv_sge sge{reinterpret_cast<uintptr_t>(recv_buffer(buffer)), static_cast<uint32_t>(kBufferBytes),
              recv_mr_->keys().lkey};
  ibv_recv_wr wr{};
  wr.wr_id = recv_wr_id(buffer);
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  const int rc = device_->srq() ? ibv_post_srq_recv(device_->srq(), &wr, &bad)
                                : ibv_post_recv(peers_[owner].qp, &wr, &bad);
  if (rc != 0) {
    done_.note(prefix() + ": cannot repost a receive buffer" +
               (device_->srq() ? std::string() : " for " + rank_name(owner)) + ": " +
               std::strerror(rc));
    if (owner != kAnyPeer) peer_down(owner, OpStatus::peer_lost, done_.last_error());
  }
}

}  // namespace evb::verbs
