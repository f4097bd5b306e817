#pragma once
// Per-flow fair queueing at the switch outputs of the credit model, used with
// infinite buffers only. A flow is a connection (a source and destination
// host pair and a lane, CreditNetwork's connections); each
// switch output keeps a FIFO of chunks per flow and serves the flows that
// have a chunk waiting round-robin, one chunk at a time, a flow that becomes
// active joining at the back. This is the packet analogue of the max-min
// sharing of a fluid model (an output-queued switch with per-flow fair
// queueing), and a single-chunk command waits behind one chunk of each busy
// flow, not behind whole fragments. A flow's queue at a given output is
// found from the slot of that output link in the platform's stored route of
// the pair (Platform::route_begin) and the lane, so nothing is looked up per
// chunk; each output's active flows form a circular list threaded through
// the slots (12 bytes per stored route entry and lane: three times what the
// routes take, per lane). FairQueues owns the slots and rings; the chunks
// live in the engine's pool.
#include <cstdint>
#include <vector>

#include "sim/credit/pools.hpp"
#include "topo/platform.hpp"

namespace evb::simnet {

class FairQueues {
 public:
  // `lanes` slots per entry of the platform's stored routes (finish()ed),
  // one ring per link.
  FairQueues(const topo::Platform& platform, int lanes);

  // Chunk `c` of connection lane `lane` waits at output link `out`; `hop`
  // points at `out` in its pair's stored route.
  void push(int out, const int* hop, uint32_t lane, uint32_t c, Pool<Chunk>& chunks) {
    const uint32_t slot = static_cast<uint32_t>(hop - base_) * lanes_ + lane;
    Flow& f = flows_[slot];
    const bool was_empty = f.chunks.empty();
    f.chunks.push(chunks, c);
    if (!was_empty) return;
    uint32_t& tail = last_[out];
    if (tail == kNone) {
      f.next = slot;
    } else {
      f.next = flows_[tail].next;
      flows_[tail].next = slot;
    }
    tail = slot;  // the new flow is served after every flow already waiting
  }

  // The chunk output `out` sends next; kNone when nothing waits for it.
  uint32_t head(int out) const {
    const uint32_t tail = last_[out];
    return tail == kNone ? kNone : flows_[flows_[tail].next].chunks.head;
  }

  // Removes head(out) (which must exist): its flow goes to the back of the
  // ring, or leaves it when emptied.
  void pop(int out, Pool<Chunk>& chunks) {
    uint32_t& tail = last_[out];
    const uint32_t slot = flows_[tail].next;
    Flow& f = flows_[slot];
    f.chunks.pop(chunks);
    if (!f.chunks.empty())
      tail = slot;
    else if (slot == tail)
      tail = kNone;
    else
      flows_[tail].next = f.next;
  }

 private:
  struct Flow {
    Queue chunks;
    uint32_t next = kNone;  // the next active flow of the same output (circular)
  };
  const int* base_;             // the first entry of the platform's stored routes
  uint32_t lanes_;              // slots per route entry
  std::vector<Flow> flows_;     // per route entry
  std::vector<uint32_t> last_;  // per link: the active flow served last (the ring's tail)
};

}  // namespace evb::simnet
