#pragma once
// The credit model's event loop (what CreditNetwork's Impl runs): it cuts
// messages into chunks at the NICs, moves them link by link when the far
// end's buffer has credits, arbitrates each switch output round-robin and
// returns credits when a chunk's tail leaves a buffer. Two events per chunk
// and link: the end of its transmission (the link is free, the buffer it
// left gets its credits back) and its arrival (head for cut-through, tail for
// store-and-forward and at a host). With infinite buffers each switch output
// serves its flows round-robin instead (fair_queues.hpp). The Engine owns the
// fabric state, the NICs, the pools and the clock; the platform is borrowed.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/credit/event_queue.hpp"
#include "sim/credit/fabric.hpp"
#include "sim/credit/fair_queues.hpp"
#include "sim/credit/network.hpp"
#include "sim/credit/nic.hpp"
#include "sim/credit/pools.hpp"

namespace evb::simnet {

class Engine {
 public:
  Engine(const topo::Platform& platform, const NetworkParams& params, int lanes);

  uint64_t send(int src, int dst, uint64_t bytes, int64_t now_ns, int lane, Traffic traffic);
  int64_t next_event_ns() const;
  void advance(int64_t t_ns, std::vector<Delivery>& delivered);

  const std::vector<LinkStats>& link_stats() const;
  uint64_t events_processed() const { return events_; }
  uint64_t in_flight() const { return in_flight_; }
  uint64_t queued_at_nic(int src) const;
  const NetworkParams& params() const { return params_; }

 private:
  enum : uint32_t { kTxEnd = 0, kArrive = 1 };  // event payload: link * 2 + kind

  // Runs the events up to `limit_ps`, deliveries into *out_.
  void run(int64_t limit_ps);
  // Starts the next chunk on link `out` if it is free, has one waiting and
  // the far end has room for it.
  void try_start(int out);
  // The input port output `out` serves next and its VL (`vl`): the VLs in
  // turn after the last served, passing over those without credits beyond
  // `out`, each VL's input ports round-robin after the last it served; -1
  // when no chunk waits for it.
  int pick(int out, LinkState& l, int& vl);
  // The head of input link `in`'s queue on `vl` (for `out_port` with voq).
  uint32_t head_at(int in, int vl, int out_port);
  uint8_t vl_of(int dst, Traffic traffic) const;
  void arrive(int link);
  void tx_end(int link);
  void stop_waiting(LinkState& l);  // ends a credit wait, counting it

  const topo::Platform& platform_;
  NetworkParams params_;
  Fabric fabric_;
  Nics nics_;
  std::optional<FairQueues> fair_;  // infinite buffers: per-flow round robin
  Pool<Chunk> chunks_;
  Pool<Message> messages_;
  EventQueue queue_;
  int64_t now_ps_ = 0;
  uint64_t events_ = 0;
  uint64_t next_id_ = 1;
  uint64_t in_flight_ = 0;
  int lanes_ = 1;
  std::vector<Delivery>* out_ = nullptr;
  std::vector<Delivery> early_;  // delivered while send() caught the clock up
  mutable std::vector<LinkStats> stats_;
};

}  // namespace evb::simnet
