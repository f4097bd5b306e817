#pragma once
// The source side of every host's NIC in the credit model: one queue pair
// (a FIFO of messages) per destination, served round-robin a chunk at a
// time. The active queue pairs of a host wait in a ring in the order they
// became non-empty; serving one moves it to the back. Nics owns the queue
// pairs and rings (a host's arrays are sized when it first sends); the
// messages themselves live in the engine's pool.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/credit/pools.hpp"

namespace evb::simnet {

class Nics {
 public:
  explicit Nics(int hosts) : hosts_(hosts), nic_(static_cast<size_t>(hosts)) {}

  // Message slot `m` (to messages[m].dst) joins its queue pair at `src`.
  void enqueue(int src, uint32_t m, Pool<Message>& messages);
  bool idle(int src) const { return nic_[src].active == 0; }
  // The message whose chunk goes next (the front of the ring's front queue
  // pair); the host must not be idle.
  uint32_t front(int src) const {
    const Nic& n = nic_[src];
    return n.qp[n.ring[n.ring_head]].head;
  }
  // A chunk of front(src) left: its queue pair goes to the back of the ring,
  // or leaves it when `message_done` emptied it.
  void served(int src, bool message_done, Pool<Message>& messages);
  uint64_t queued(int src) const { return nic_[src].queued; }

 private:
  struct Nic {
    std::vector<Queue> qp;   // per destination host
    std::vector<int> ring;   // active destinations, circular
    uint32_t ring_head = 0;  // index of the front in `ring`
    uint32_t active = 0;     // entries in the ring
    uint64_t queued = 0;     // messages not yet wholly cut into chunks
  };
  int hosts_;
  std::vector<Nic> nic_;
};

}  // namespace evb::simnet
