// Completions: the UCX callbacks, the queue poll() drains, control messages
// (hello, notify, bye), and what a lost or departed peer does to the
// operations waiting on it.
#include <poll.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "drivers/common/peer_down.hpp"
#include "drivers/common/rank_tags.hpp"
#include "drivers/ucx/ucx_driver.hpp"

namespace evb::ucx {

// ---------------------------------------------------------------- callbacks
// UCX calls these from inside ucp_worker_progress, and a receive's also
// from inside ucp_tag_recv_nbx (NO_IMM_CMPL, see start_recv); sends, puts
// and flushes that finish at once are returned, not called back. The request is released here,
// after its Op is done with it; the Op goes back to the pool when its completion is queued.

void send_callback(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<Op*>(user_data);
  op->request = nullptr;
  ucp_request_free(request);
  op->driver->on_send_done(op, status);
}

void recv_callback(void* request, ucs_status_t status, const ucp_tag_recv_info_t* info,
                   void* user_data) {
  auto* op = static_cast<Op*>(user_data);
  op->request = nullptr;
  if (op->posting) {  // inside ucp_tag_recv_nbx: start_recv finishes it
    if (status == UCS_OK || status == UCS_ERR_MESSAGE_TRUNCATED) op->info = *info;
    op->post_status = status;
    op->done_in_post = true;
  } else {
    op->driver->on_recv_done(op, status, info);  // `info` lives in the request: use it first
  }
  ucp_request_free(request);
}

void flush_callback(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<Op*>(user_data);
  op->request = nullptr;
  ucp_request_free(request);
  op->driver->on_flush_done(op, status);
}

void put_callback(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<Op*>(user_data);
  ucp_request_free(request);
  op->driver->on_put_done(op, status);
}

void endpoint_error(void* arg, ucp_ep_h /*ep*/, ucs_status_t status) {
  const auto* peer = static_cast<const PeerHandle*>(arg);
  peer->driver->on_peer_error(peer->rank, status);
}

// ---------------------------------------------------------------- queue

namespace {

// Receives posted at once, of OpList::kLargeReceive bytes or more, from which
// on a rank paces its polls: a sender keeps about that many in flight, so
// the next messages are already queued behind the one arriving. With fewer
// the sender soon waits for this one to drain, and a later read delays it:
// ucx/tcp send at 5 us paced from 4 receives lost 5 % at window 4 (6
// receives posted) and 9 % at window 8 (12), gained 11 % at 16 (24) and
// 15-20 % at 32 (48) (notes/h38p/windows-from4.txt).
constexpr size_t kPacedReceives = 16;

void spin_for(std::chrono::nanoseconds pause) {
  const auto end = std::chrono::steady_clock::now() + pause;
  while (std::chrono::steady_clock::now() < end) {
  }
}

}  // namespace

// Over tcp, a receiver that reads the socket as soon as bytes arrive reads
// and acknowledges each large message while the sender's sendmsg still
// copies it in, and over the loopback the sender's core pays for that
// (docs/drivers/ucx.md, "ucx/tcp at ~0.8 of the tool"). A rank with a stream
// of large receives posted and nothing of its own in flight therefore waits
// poll_pause() before each look; a sender, a writer or a write target (no
// large receives) never does.
bool UcxDriver::paced() const {
  return poll_pause_.count() > 0 && posted_.large() >= kPacedReceives &&
         ops_.live(OpKind::send) == 0 && ops_.live(OpKind::write) == 0;
}

void UcxDriver::progress() {
  // A bounded burst: each call may run many callbacks.
  for (int i = 0; i < 16; ++i) {
    if (paced()) {
      spin_for(poll_pause_);
      ++paced_polls_;
    }
    if (ucp_worker_progress(worker_->worker()) == 0) break;
  }
}

size_t UcxDriver::poll(std::span<Completion> out) {
  progress();
  return done_.drain(out);
}

// Sleeps on the worker's event fd once ucp_worker_arm() says nothing is
// pending. When it says UCS_ERR_BUSY instead, what is pending usually waits
// on another rank's CPU time, not on an event: over shared memory a send
// waits for FIFO room that the receiver frees without signalling, or for a
// FIFO slot a descheduled sender claimed and has not yet filled. UCX raises
// no event for either, so the rank must poll again; it gives up its core
// first (sched_yield), or on a host with fewer cores than ranks it spins
// through the time slice the peer needs (block ran ucx/sm send at the speed
// of busy, a tenth of yield's: docs/drivers/ucx.md, "Blocking").
void UcxDriver::wait(std::chrono::microseconds timeout) {
  if (!caps_.can_block || !done_.empty()) return;
  progress();
  if (!done_.empty()) return;
  nap(timeout);
}

void UcxDriver::nap(std::chrono::microseconds timeout) {
  if (!caps_.can_block) {
    sched_yield();
    return;
  }
  // Armed means: the event fd fires for anything that arrives from now on.
  if (ucp_worker_arm(worker_->worker()) != UCS_OK) {  // UCS_ERR_BUSY: work pending
    sched_yield();
    return;
  }
  pollfd pfd{worker_->event_fd(), POLLIN, 0};
  const auto us = std::max<int64_t>(timeout.count(), 0);
  timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
  while (::ppoll(&pfd, 1, &ts, nullptr) < 0 && errno == EINTR) {
  }
}

void UcxDriver::complete(Op* op, OpStatus status, size_t bytes, PeerId peer, Tag tag,
                         const std::string& why) {
  const OpType type = op->kind == OpKind::recv    ? OpType::recv
                      : op->kind == OpKind::write ? OpType::rdma_write
                                                  : OpType::send;
  done_.push(Completion{op->cookie, type, status, peer, tag, bytes, 0});
  if (status != OpStatus::ok) done_.note(why);
  posted_.remove(op);
  ops_.put(op);
}

OpStatus UcxDriver::status_for(PeerId peer, ucs_status_t status) const {
  if (status == UCS_OK) return OpStatus::ok;
  if (status == UCS_ERR_MESSAGE_TRUNCATED) return OpStatus::truncated;
  if (book_.state(peer) == PeerState::lost) return OpStatus::peer_lost;
  if (book_.state(peer) == PeerState::closed) return OpStatus::peer_closed;
  switch (status) {
    case UCS_ERR_CONNECTION_RESET:
    case UCS_ERR_ENDPOINT_TIMEOUT:
    case UCS_ERR_UNREACHABLE:
      return OpStatus::peer_lost;
    default:
      return OpStatus::error;
  }
}

// ---------------------------------------------------------------- operations

void UcxDriver::on_send_done(Op* op, ucs_status_t status) {
  const std::string why =
      status == UCS_OK ? std::string()
                       : prefix() + ": send to " + rank_name(op->peer) + ": " + status_text(status);
  if (op->kind == OpKind::write) {  // its notify went out
    op->notified = true;
    if (status != UCS_OK) write_failed(op, status, "notify");
    write_progress(op);
  } else if (op->kind == OpKind::ctl_send) {
    --control_sends_;
    if (status != UCS_OK && status != UCS_ERR_CANCELED) done_.note(why);
    ops_.put(op);
  } else {
    complete(op, status_for(op->peer, status), op->size, op->peer, op->tag, why);
  }
}

// ---------------------------------------------------------------- writes
// A write is puts (each completes when its source may be reused), then a
// flush (completes when every put has landed), then, with an immediate, the
// notify (a control message naming it, which the target turns into its
// remote_write: never before the flush, so never before the data). Its
// rdma_write completion comes as soon as the puts completed when it has an
// immediate: the target learns of the write from the notify, not from the
// writer, so the writer's window need not wait for the flush's round trip
// (docs/drivers/ucx.md, "The write path at window 1"). Without an immediate
// the completion is all the writer can pass on, so it waits for the flush.

void UcxDriver::on_put_done(Op* op, ucs_status_t status) {
  --op->puts_left;
  if (status != UCS_OK) write_failed(op, status, "ucp_put_nbx");
  write_progress(op);
}

void UcxDriver::on_flush_done(Op* op, ucs_status_t status) {
  op->flushed = true;
  if (status != UCS_OK) write_failed(op, status, "flush");
  write_progress(op);
}

void UcxDriver::write_failed(Op* op, ucs_status_t status, const char* step) {
  if (op->status != OpStatus::ok) return;  // the first failure is the one told
  op->status = status_for(op->peer, status);
  if (op->status == OpStatus::ok) op->status = OpStatus::error;
  op->failed_step = step;
  op->failed_with = status;
  done_.note(prefix() + ": write to " + rank_name(op->peer) + ": " + step + ": " +
             status_text(status));
}

void UcxDriver::write_progress(Op* op) {
  if (op->posting) return;  // rdma_write calls again once everything is posted
  const bool puts_done = op->puts_left == 0;
  if (!op->reported && puts_done && op->immediate && op->status == OpStatus::ok &&
      book_.is_open(op->peer)) {
    done_.push(Completion{op->cookie, OpType::rdma_write, OpStatus::ok, op->peer, 0, op->size, 0});
    op->reported = true;
    ++background_writes_;
  }
  if (!op->flushed || !puts_done) return;
  if (op->status == OpStatus::ok && op->immediate && !op->notifying && !peers_[op->peer].ep)
    write_failed(op, UCS_ERR_CANCELED, "notify (the endpoint was closed)");
  if (op->status == OpStatus::ok && op->immediate && !op->notifying) {
    send_notify(op);  // may finish (and release) op at once: not touched after
    return;
  }
  if (op->notifying && !op->notified) return;
  if (!op->reported) {
    // The failure (if any) is noted already.
    complete(op, op->status, op->size, op->peer, 0, {});
    return;
  }
  --background_writes_;
  const bool ok = op->status == OpStatus::ok;
  const PeerId peer = op->peer;
  const char* step = op->failed_step;
  const ucs_status_t with = op->failed_with;
  ops_.put(op);
  if (ok) return;
  // Reported complete, and now neither flushed nor announced: the target
  // will never see it. The peer is taken as lost (unless it is down
  // already, its peer_event out), so that the protocol hears of it.
  ++late_write_failures_;
  if (!book_.is_open(peer)) return;
  peer_down(peer, OpStatus::peer_lost,
            prefix() + ": " + rank_name(peer) +
                " taken as lost: a write to it was reported complete, then its " + step +
                " failed: " + status_text(with));
}

void UcxDriver::on_recv_done(Op* op, ucs_status_t status, const ucp_tag_recv_info_t* info) {
  // The callback's info, or (immediate completion) the one UCX filled in.
  if (info != &op->info && (status == UCS_OK || status == UCS_ERR_MESSAGE_TRUNCATED))
    op->info = *info;
  info = &op->info;
  if (op->kind == OpKind::ctl_recv) {
    if (status == UCS_OK) on_control(op, info->length);
    if (status != UCS_OK && status != UCS_ERR_CANCELED)
      done_.note(prefix() + ": control receive failed: " + status_text(status));
    if (closing_ || status == UCS_ERR_CANCELED) {
      control_recvs_.erase(std::find(control_recvs_.begin(), control_recvs_.end(), op));
      ops_.put(op);
    } else {
      start_recv(op, op->ctl, sizeof op->ctl, nullptr);  // repost
    }
    return;
  }
  switch (status) {
    case UCS_OK:
      return complete(op, OpStatus::ok, info->length, tag_sender(info->sender_tag),
                      tag_user(info->sender_tag), {});
    case UCS_ERR_MESSAGE_TRUNCATED: {
      // The posted size at least, the message's length where UCX reports it.
      const size_t bytes = std::max(info->length, op->size);
      const PeerId from = info->sender_tag ? tag_sender(info->sender_tag) : op->peer;
      return complete(op, OpStatus::truncated, bytes, from, op->tag,
                      prefix() + ": receive from " + rank_name(from) + ": message of " +
                          std::to_string(info->length) + " bytes, " + std::to_string(op->size) +
                          " posted");
    }
    case UCS_ERR_CANCELED:
      return complete(
          op, op->cancel_status, 0, op->peer, op->tag,
          prefix() + ": receive from " + rank_name(op->peer) + " cancelled: " + done_.last_error());
    default:
      return complete(
          op, status_for(op->peer, status), 0, op->peer, op->tag,
          prefix() + ": receive from " + rank_name(op->peer) + ": " + status_text(status));
  }
}

// ---------------------------------------------------------------- control

void UcxDriver::on_control(Op* op, size_t len) {
  const PeerId from = tag_sender(op->info.sender_tag);
  auto m = decode(std::span<const std::byte>(op->ctl, std::min(len, sizeof op->ctl)));
  // Only well-formed messages whose claimed sender is the tag's sender and
  // a rank of this run count; anything else is dropped and noted.
  if (!m || len != kControlBytes || !valid_rank(from) || m->rank != static_cast<uint32_t>(from)) {
    done_.note(prefix() + ": ignored a malformed control message (" + std::to_string(len) +
               " bytes, tagged as from " + rank_name(from) + ")");
    return;
  }
  switch (m->kind) {
    case CtlKind::hello:
      book_.hello(from, m->a, m->size);
      break;
    case CtlKind::notify: {
      if (m->b > 0xFFFFFFFFull) {
        done_.note(prefix() + ": ignored a notify from " + rank_name(from) +
                   " with an immediate wider than 32 bits");
        break;
      }
      done_.remote_write(from, static_cast<size_t>(m->a), static_cast<uint32_t>(m->b));
      break;
    }
    case CtlKind::bye:
      peer_down(from, OpStatus::peer_closed, rank_name(from) + " shut down");
      break;
    case CtlKind::ping:
    case CtlKind::pong:
      break;  // keepalive is UCX's own here
  }
}

// ---------------------------------------------------------------- peers

void UcxDriver::on_peer_error(PeerId peer, ucs_status_t status) {
  if (!valid_rank(peer)) return;
  peer_down(peer, OpStatus::peer_lost,
            prefix() + ": " + rank_name(peer) + " was lost: UCX reports " + status_text(status));
}

void UcxDriver::cancel(const std::vector<Op*>& ops, OpStatus status) {
  for (Op* op : ops) {
    op->cancel_status = status;
    if (op->request) ucp_request_cancel(worker_->worker(), op->request);
  }
}

void UcxDriver::peer_down(PeerId peer, OpStatus status, const std::string& why) {
  // Receives waiting on it can never match now (its messages that already
  // arrived were matched first: UCX delivers in order); any-peer receives
  // fail once nobody is left. Sends are UCX's: its error handler fails them.
  auto cancel_posted = [this](PeerId which, OpStatus st) {
    std::vector<Op*> doomed;
    for (Op* op = posted_.head(); op; op = op->next)
      if (op->peer == which) doomed.push_back(op);
    cancel(doomed, st);
  };
  take_peer_down(
      book_, done_, peer, status, why, LateLoss::ignored,
      [&](PeerId p, OpStatus st, const std::string&) { cancel_posted(p, st); },
      [&](OpStatus st, const std::string&) { cancel_posted(kAnyPeer, st); });
}

}  // namespace evb::ucx
