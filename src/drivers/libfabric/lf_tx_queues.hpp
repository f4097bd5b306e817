#pragma once
// Transmit operations libfabric refused with FI_EAGAIN, one FIFO per peer.
//
// Order matters only per peer (FI_ORDER_SAS, an emulated immediate after its
// write, a goodbye after the data). One queue for all peers would let a peer
// that never takes anything again block every other: ofi_rxm answers
// FI_EAGAIN to each send for a killed peer while it retries the connection,
// and a pong queued behind such a send makes a healthy rank look dead to the
// keepalive. So each peer waits only behind its own operations.
#include <algorithm>
#include <cstddef>
#include <deque>
#include <vector>

#include "drivers/libfabric/lf_ops.hpp"

namespace evb::libfabric {

class TxQueues {
 public:
  void resize(size_t ranks) {
    queues_.resize(ranks);
    listed_.resize(ranks, 0);
  }
  bool empty() const { return count_ == 0; }
  size_t size() const { return count_; }
  // Something of this peer waits: a new operation for it must wait behind.
  bool waiting(PeerId peer) const { return !queues_[static_cast<size_t>(peer)].empty(); }
  void push(Op* op) {
    const auto p = static_cast<size_t>(op->peer);
    queues_[p].push_back(op);
    ++count_;
    if (!listed_[p]) {
      listed_[p] = 1;
      backlog_.push_back(op->peer);
    }
  }
  // Offers every peer's queue, front first, to `issue`, which answers false
  // when the provider is busy for that operation (it goes back to the front,
  // and the rest of that peer's queue waits behind it) and true when it was
  // posted or failed at once. `issue` may push operations or drop a peer's
  // queue (a failure that loses the peer).
  template <class Issue>
  void drain(Issue issue) {
    for (size_t i = 0; i < backlog_.size(); ++i) {
      const PeerId peer = backlog_[i];
      std::deque<Op*>& q = queues_[static_cast<size_t>(peer)];
      while (!q.empty()) {
        Op* op = q.front();
        q.pop_front();
        --count_;
        if (!issue(op)) {
          q.push_front(op);
          ++count_;
          break;
        }
      }
    }
    std::erase_if(backlog_, [&](PeerId peer) {
      if (!queues_[static_cast<size_t>(peer)].empty()) return false;
      listed_[static_cast<size_t>(peer)] = 0;
      return true;
    });
  }
  // Removes and returns what waits for this peer.
  std::vector<Op*> take(PeerId peer) {
    std::deque<Op*>& q = queues_[static_cast<size_t>(peer)];
    std::vector<Op*> out(q.begin(), q.end());
    count_ -= q.size();
    q.clear();
    return out;
  }
  void clear() {
    for (auto& q : queues_) q.clear();
    std::fill(listed_.begin(), listed_.end(), 0);
    backlog_.clear();
    count_ = 0;
  }

 private:
  std::vector<std::deque<Op*>> queues_;  // indexed by rank
  std::vector<PeerId> backlog_;          // ranks whose queue may be non-empty
  std::vector<char> listed_;             // in backlog_
  size_t count_ = 0;
};

}  // namespace evb::libfabric
