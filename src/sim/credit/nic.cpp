// The NICs' queue pairs, their round-robin ring and express FIFO.
#include "sim/credit/nic.hpp"

namespace evb::simnet {

bool Nics::small_head(const Nic& n, uint32_t q, const Pool<Message>& messages) const {
  const Queue& qp = n.qp[q];
  if (qp.empty() || mtu_ == 0) return false;
  return messages[qp.head].bytes <= mtu_;
}

void Nics::to_ring_back(Nic& n, uint32_t q) {
  const uint32_t size = static_cast<uint32_t>(n.ring.size());
  const uint32_t back = n.ring_head + n.active;
  n.ring[back >= size ? back - size : back] = q;
  ++n.active;
  n.in_ring[q] = 1;
}

void Nics::enqueue(int src, uint32_t m, Pool<Message>& messages) {
  Nic& n = nic_[src];
  if (n.qp.empty()) {
    const size_t pairs = static_cast<size_t>(hosts_) * static_cast<size_t>(lanes_);
    n.qp.assign(pairs, Queue{});
    n.ring.assign(pairs, kNone);
    n.in_ring.assign(pairs, 0);
    if (window_ > 0) n.in_net.assign(pairs, 0);
  }
  const uint32_t q = pair_of(messages[m]);
  Queue& qp = n.qp[q];
  const bool was_empty = qp.empty();
  qp.push(messages, m);
  ++n.queued;
  if (!was_empty) return;
  if (!n.in_ring[q]) to_ring_back(n, q);
  if (small_head(n, q, messages)) n.express.push_back(q);
}

uint32_t Nics::front(int src, const Pool<Message>& messages, uint32_t blocked_vls) {
  Nic& n = nic_[src];
  // Express entries whose queue pair emptied or moved on are stale.
  while (!n.express.empty() && !small_head(n, n.express.front(), messages)) n.express.pop_front();
  if (!n.express.empty() &&
      ((blocked_vls >> messages[n.qp[n.express.front()].head].vl) & 1u) == 0) {
    n.from_express = true;
    return n.qp[n.express.front()].head;
  }
  n.from_express = false;
  // Ring entries whose queue pair the express FIFO emptied are stale.
  const uint32_t size = static_cast<uint32_t>(n.ring.size());
  while (n.active > 0 && n.qp[n.ring[n.ring_head]].empty()) {
    n.in_ring[n.ring[n.ring_head]] = 0;
    n.ring_head = n.ring_head + 1 == size ? 0 : n.ring_head + 1;
    --n.active;
  }
  if (n.active == 0) return kNone;  // only the express FIFO had messages
  if (window_ == 0 && blocked_vls == 0) return n.qp[n.ring[n.ring_head]].head;
  // Queue pairs at their window or on a blocked VL go to the back, in turn,
  // until one is neither.
  for (uint32_t k = n.active; k > 0; --k) {
    const uint32_t q = n.ring[n.ring_head];
    if (!n.qp[q].empty() && (window_ == 0 || n.in_net[q] < window_) &&
        ((blocked_vls >> messages[n.qp[q].head].vl) & 1u) == 0)
      return n.qp[q].head;
    n.ring_head = n.ring_head + 1 == size ? 0 : n.ring_head + 1;
    --n.active;
    n.in_ring[q] = 0;
    if (!n.qp[q].empty()) to_ring_back(n, q);
  }
  return kNone;
}

bool Nics::delivered(int src, uint32_t q) {
  if (window_ == 0) return false;
  Nic& n = nic_[src];
  return n.in_net[q]-- == window_;
}

void Nics::served(int src, bool message_done, Pool<Message>& messages) {
  Nic& n = nic_[src];
  if (n.from_express) {
    // A message of at most one MTU, but perhaps several chunks of a tiny chunk size.
    const uint32_t q = n.express.front();
    if (window_ > 0) ++n.in_net[q];
    if (!message_done) return;
    n.express.pop_front();
    n.qp[q].pop(messages);
    --n.queued;
    if (small_head(n, q, messages)) n.express.push_back(q);
    return;  // its ring entry stays where it was (skipped when empty)
  }
  const uint32_t q = n.ring[n.ring_head];
  if (window_ > 0) ++n.in_net[q];
  const uint32_t size = static_cast<uint32_t>(n.ring.size());
  n.ring_head = n.ring_head + 1 == size ? 0 : n.ring_head + 1;
  --n.active;
  n.in_ring[q] = 0;
  if (message_done) {
    n.qp[q].pop(messages);
    --n.queued;
    if (small_head(n, q, messages)) n.express.push_back(q);
  }
  if (!n.qp[q].empty()) to_ring_back(n, q);
}

}  // namespace evb::simnet
