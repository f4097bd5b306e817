// The NICs' queue pairs and their round-robin ring.
#include "sim/credit/nic.hpp"

namespace evb::simnet {

void Nics::enqueue(int src, uint32_t m, Pool<Message>& messages) {
  Nic& n = nic_[src];
  if (n.qp.empty()) {
    n.qp.assign(static_cast<size_t>(hosts_), Queue{});
    n.ring.assign(static_cast<size_t>(hosts_), -1);
  }
  const int dst = messages[m].dst;
  Queue& q = n.qp[dst];
  if (q.empty()) {
    n.ring[(n.ring_head + n.active) % n.ring.size()] = dst;
    ++n.active;
  }
  q.push(messages, m);
  ++n.queued;
}

void Nics::served(int src, bool message_done, Pool<Message>& messages) {
  Nic& n = nic_[src];
  const int dst = n.ring[n.ring_head];
  const uint32_t size = static_cast<uint32_t>(n.ring.size());
  n.ring_head = n.ring_head + 1 == size ? 0 : n.ring_head + 1;
  --n.active;
  if (message_done) {
    n.qp[dst].pop(messages);
    --n.queued;
  }
  if (!n.qp[dst].empty()) {
    const uint32_t back = n.ring_head + n.active;
    n.ring[back >= size ? back - size : back] = dst;
    ++n.active;
  }
}

}  // namespace evb::simnet
