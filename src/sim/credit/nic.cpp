// The NICs' queue pairs, their round-robin ring and express FIFO.
#include "sim/credit/nic.hpp"

namespace evb::simnet {

bool Nics::small_head(const Nic& n, int dst, const Pool<Message>& messages) const {
  const Queue& q = n.qp[dst];
  if (q.empty() || mtu_ == 0) return false;
  return messages[q.head].bytes <= mtu_;
}

void Nics::to_ring_back(Nic& n, int dst) {
  const uint32_t size = static_cast<uint32_t>(n.ring.size());
  const uint32_t back = n.ring_head + n.active;
  n.ring[back >= size ? back - size : back] = dst;
  ++n.active;
  n.in_ring[dst] = 1;
}

void Nics::enqueue(int src, uint32_t m, Pool<Message>& messages) {
  Nic& n = nic_[src];
  if (n.qp.empty()) {
    n.qp.assign(static_cast<size_t>(hosts_), Queue{});
    n.ring.assign(static_cast<size_t>(hosts_), -1);
    n.in_ring.assign(static_cast<size_t>(hosts_), 0);
  }
  const int dst = messages[m].dst;
  Queue& q = n.qp[dst];
  const bool was_empty = q.empty();
  q.push(messages, m);
  ++n.queued;
  if (!was_empty) return;
  if (!n.in_ring[dst]) to_ring_back(n, dst);
  if (small_head(n, dst, messages)) n.express.push_back(dst);
}

uint32_t Nics::front(int src, const Pool<Message>& messages) {
  Nic& n = nic_[src];
  // Express entries whose queue pair emptied or moved on are stale.
  while (!n.express.empty() && !small_head(n, n.express.front(), messages)) n.express.pop_front();
  if (!n.express.empty()) {
    n.from_express = true;
    return n.qp[n.express.front()].head;
  }
  n.from_express = false;
  // Ring entries whose queue pair the express FIFO emptied are stale.
  const uint32_t size = static_cast<uint32_t>(n.ring.size());
  while (n.qp[n.ring[n.ring_head]].empty()) {
    n.in_ring[n.ring[n.ring_head]] = 0;
    n.ring_head = n.ring_head + 1 == size ? 0 : n.ring_head + 1;
    --n.active;
  }
  return n.qp[n.ring[n.ring_head]].head;
}

void Nics::served(int src, bool message_done, Pool<Message>& messages) {
  Nic& n = nic_[src];
  if (n.from_express) {
    // A message of at most one MTU, but perhaps several chunks of a tiny chunk size.
    const int dst = n.express.front();
    if (!message_done) return;
    n.express.pop_front();
    n.qp[dst].pop(messages);
    --n.queued;
    if (small_head(n, dst, messages)) n.express.push_back(dst);
    return;  // its ring entry stays where it was (skipped when empty)
  }
  const int dst = n.ring[n.ring_head];
  const uint32_t size = static_cast<uint32_t>(n.ring.size());
  n.ring_head = n.ring_head + 1 == size ? 0 : n.ring_head + 1;
  --n.active;
  n.in_ring[dst] = 0;
  if (message_done) {
    n.qp[dst].pop(messages);
    --n.queued;
    if (small_head(n, dst, messages)) n.express.push_back(dst);
  }
  if (!n.qp[dst].empty()) to_ring_back(n, dst);
}

}  // namespace evb::simnet
