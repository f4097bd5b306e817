#pragma once
// The source side of every host's NIC in the credit model: one queue pair
// (a FIFO of messages) per connection (destination host and lane, the
// index destination * lanes + lane), served round-robin a chunk at a
// time. The active queue pairs of a host wait in a ring in the order they
// became non-empty; serving one moves it to the back. A queue pair whose
// head is a message of at most one MTU (`mtu` bytes, 0: none) also waits in
// an express FIFO, served first: a real NIC interleaves its queue pairs a
// packet at a time, so a command waits behind one packet of each busy queue
// pair, not a whole chunk (only a head goes ahead: each queue pair stays in
// order). With a window (network.flow_window, W chunks) a queue pair with
// W chunks between the NIC and its destination is passed over until one
// arrives, and the NIC serves the next; when every active queue pair is at
// its window the NIC waits (express messages, at most one MTU, are counted
// but never held back). With virtual lanes, a queue pair whose next chunk's
// VL has no credits on the uplink is passed over the same way (per-VL
// arbitration, as an HCA's). Nics owns the queue pairs, rings and express FIFOs
// (a host's arrays are sized when it first sends); the messages live in
// the engine's pool.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/credit/pools.hpp"

namespace evb::simnet {

class Nics {
 public:
  Nics(int hosts, uint64_t mtu, int lanes, uint32_t window)
      : hosts_(hosts),
        lanes_(lanes),
        mtu_(mtu),
        window_(window),
        nic_(static_cast<size_t>(hosts)) {}

  // Message slot `m` (to messages[m].dst on messages[m].lane) joins its
  // queue pair at `src`.
  void enqueue(int src, uint32_t m, Pool<Message>& messages);
  bool idle(int src) const { return nic_[src].queued == 0; }
  // The message whose chunk goes next: the head of the express FIFO's front
  // queue pair, else of the first queue pair in the ring under its window
  // (kNone when every one is at its window); the host must not be idle.
  // Queue pairs whose head message is on a VL of `blocked_vls` (bit per VL:
  // no credits beyond the uplink) are passed over as those at their window
  // are. Asked again with the same mask before served(), it answers the same.
  uint32_t front(int src, const Pool<Message>& messages, uint32_t blocked_vls = 0);
  // A chunk of front(src) left: its queue pair goes to the back of the ring,
  // or leaves it when `message_done` emptied it.
  void served(int src, bool message_done, Pool<Message>& messages);
  uint64_t queued(int src) const { return nic_[src].queued; }
  // The queue pair of a message (its destination and lane).
  uint32_t pair_of(const Message& m) const {
    return static_cast<uint32_t>(m.dst) * static_cast<uint32_t>(lanes_) + m.lane;
  }
  // A chunk of queue pair `q` of `src` reached its destination: true when
  // that queue pair was held back by its window (the NIC may go on).
  bool delivered(int src, uint32_t q);

 private:
  struct Nic {
    std::vector<Queue> qp;         // per connection (destination host, lane)
    std::vector<uint32_t> ring;    // queue pairs with messages, circular
    std::vector<uint8_t> in_ring;  // by queue pair
    uint32_t ring_head = 0;        // index of the front in `ring`
    uint32_t active = 0;           // entries in the ring
    uint64_t queued = 0;           // messages not yet wholly cut into chunks
    std::deque<uint32_t> express;  // queue pairs whose head is at most one MTU
    bool from_express = false;     // front() answered from `express`
    std::vector<uint32_t> in_net;  // by queue pair: chunks between NIC and destination (window)
  };
  bool small_head(const Nic& n, uint32_t q, const Pool<Message>& messages) const;
  void to_ring_back(Nic& n, uint32_t q);
  int hosts_;
  int lanes_;
  uint64_t mtu_;
  uint32_t window_;  // 0: none
  std::vector<Nic> nic_;
};

}  // namespace evb::simnet
