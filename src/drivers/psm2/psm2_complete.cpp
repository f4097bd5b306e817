// Completions of the psm2 driver: progress, the MQ completion queue, and
// goodbyes from peers.
#include <cstring>
#include <vector>

#include "drivers/common/peer_down.hpp"
#include "drivers/common/rank_tags.hpp"
#include "drivers/psm2/psm2_driver.hpp"

namespace evb::psm2 {

size_t Psm2Driver::poll(std::span<Completion> out) {
  progress();
  return done_.drain(out);
}

void Psm2Driver::progress() {
  if (!ep_ || !mq_) return;
  // psm2_mq_test never progresses and psm2_mq_ipeek2 only while the queue
  // is empty: without this call a rendezvous send waits for ever.
  psm2_poll(ep_);
  for (;;) {
    psm2_mq_req_t req = nullptr;
    if (psm2_mq_ipeek2(mq_, &req, nullptr) != PSM2_OK) break;
    psm2_mq_status2_t st{};
    if (psm2_mq_test2(&req, &st) != PSM2_OK) break;  // ipeek said it had finished
    finish(static_cast<Op*>(st.context), st);
  }
}

void Psm2Driver::finish(Op* op, const psm2_mq_status2_t& st) {
  if (op == nullptr) return;
  if (op->control) {
    if (op->type == OpType::send) {
      --control_sends_;
      free_op(op);
      return;
    }
    // A hello or goodbye: only believed when its length, magic and announced
    // rank agree with the tag's sender.
    uint32_t words[2] = {0, 0};
    const PeerId from = static_cast<PeerId>(st.msg_tag.tag1);
    if (st.error_code == PSM2_OK && st.nbytes == sizeof words) {
      std::memcpy(words, op->staging.data(), sizeof words);
      if (words[1] == st.msg_tag.tag1 && valid_rank(from)) on_control(words[0], from);
    }
    free_op(op);
    control_recv_ = nullptr;
    if (!closing_) post_control_recv();
    return;
  }
  Completion c;
  c.cookie = op->cookie;
  c.type = op->type;
  c.tag = op->tag;
  c.peer = op->peer;
  if (op->type == OpType::recv) {
    posted_recvs_.erase(op);
    const auto sender = static_cast<PeerId>(st.msg_tag.tag1);
    if (valid_rank(sender)) c.peer = sender;
    c.tag = st.msg_tag.tag0;
    c.bytes = st.error_code == PSM2_MQ_TRUNCATION ? st.msg_length : st.nbytes;
  } else {
    c.bytes = op->size;
  }
  if (st.error_code == PSM2_OK) {
    c.status = OpStatus::ok;
  } else if (st.error_code == PSM2_MQ_TRUNCATION && op->type == OpType::recv) {
    c.status = OpStatus::truncated;
  } else {
    c.status = OpStatus::error;
    done_.note(prefix() + ": " + (op->type == OpType::send ? "send to" : "receive from") +
               " rank " + std::to_string(c.peer) + ": " + error_text(st.error_code));
  }
  free_op(op);
  done_.push(c);
}

void Psm2Driver::on_control(uint32_t magic, PeerId from) {
  if (magic == kHelloMagic) {
    book_.hello(from, book_.run(), static_cast<uint32_t>(context_.size));
  } else if (magic == kByeMagic) {
    peer_closed(from);
  }
}

// A peer's bye, in the chassis's order (drivers/common/peer_down.hpp): PSM2
// reports no loss of its own, so a peer only ever closes here.
void Psm2Driver::peer_closed(PeerId peer) {
  take_peer_down(
      book_, done_, peer, OpStatus::peer_closed,
      prefix() + ": " + "rank " + std::to_string(peer) + " shut down", LateLoss::ignored,
      [this](PeerId p, OpStatus st, const std::string&) { cancel_receives(p, st); },
      [this](OpStatus st, const std::string&) { cancel_receives(kAnyPeer, st); });
}

// Receives posted for `peer` (kAnyPeer: the any-peer ones) complete with
// `status`: cancelled before a match, they complete here; otherwise their
// message is in and they complete through the queue as usual.
void Psm2Driver::cancel_receives(PeerId peer, OpStatus status) {
  std::vector<Op*> doomed;
  for (Op* op : posted_recvs_)
    if (op->peer == peer) doomed.push_back(op);
  for (Op* op : doomed) {
    if (psm2_mq_cancel(&op->req) != PSM2_OK) continue;
    psm2_mq_status2_t st{};
    psm2_mq_test2(&op->req, &st);
    posted_recvs_.erase(op);
    done_.push(Completion{op->cookie, OpType::recv, status, op->peer, op->tag, 0, 0});
    free_op(op);
  }
}

}  // namespace evb::psm2
