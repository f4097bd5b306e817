#pragma once
// CreditNetwork: a lossless, chunk-level model of a switched fabric with
// link-level credit flow control, for `evbench sim --model credit`
// (docs/SCALE.md). Plain discrete-event code with its own virtual clock; it
// knows nothing of ranks, protocols or drivers: messages go from host to
// host (indices into topo::Platform::hosts) and come out delivered at a time.
//
// The model (parameters in NetworkParams, read from the platform file's
// `network:` section):
//  - a message is cut into chunks of `chunk_bytes` (the last one shorter);
//  - a message travels on a connection: its source and destination hosts
//    and a lane (0 .. lanes-1) telling apart the connections of one host
//    pair (the ranks' pairs when several ranks share a host); each host's
//    NIC keeps one queue per connection (a queue pair) and serves the
//    non-empty ones round-robin, a chunk at a time, onto its uplink at the
//    link's bandwidth; a message's chunks leave in order, and the messages
//    of one queue pair leave in the order they were sent;
//  - every link carries one chunk at a time at its bandwidth and adds its
//    latency; a chunk moves onto a link only when the input buffer at the
//    link's far end (per port and virtual lane, `buffer_bytes`) has room for
//    it on its VL: link-level credits, returned when the chunk's tail leaves
//    that buffer (the end of its transmission on the next link; the credit
//    itself travels back at once). A host's uplink waits for credits like
//    any other link, its NIC passing over queue pairs whose VL has none
//    (with several VLs);
//  - virtual lanes (`virtual_lanes`, 1: none): a message's chunks keep one
//    VL, by `vl_map` from its Traffic and destination; each VL of an input
//    port has its own buffer, credits and queue(s);
//  - a switch routes each chunk by the platform's forwarding tables (the
//    same routes `evbench topo` reads: Platform::route_begin/route_end) and
//    arbitrates each output port round-robin among its VLs, passing over a
//    VL without credits beyond the output, and within a VL round-robin
//    among its input ports (the next waiting port after the one that VL
//    served last, by port number);
//  - queueing fifo: an input port's buffer (per VL) is one FIFO, whose head
//    alone may leave (head-of-line blocking); the next chunk becomes the
//    head once the previous one has wholly left. voq: one queue per output
//    port at every input and VL (virtual output queues), any head may
//    leave, several at once (a shared-memory switch); the queues share the
//    VL's buffer;
//  - switching cut_through: a chunk may start on the next link once its
//    head has arrived (after the link latency; onto a faster link, late
//    enough that its tail does not run dry); store_and_forward: once all of
//    it has arrived;
//  - infinite_buffers: no credit ever runs out (the bridge to a fluid model),
//    and no chunk waits behind one bound for another output, whatever
//    `queueing` says: each switch is output-queued, and each output serves
//    the flows (connections: host pair and lane) with a chunk waiting for
//    it round-robin, a chunk at a time (per-flow fair queueing, the packet
//    analogue of max-min sharing), not its input ports;
//  - the destination host's NIC takes chunks off its downlink without limit.
// Events at one instant run in the order they were scheduled. Time runs in
// picoseconds inside; a time in ns given out is rounded up.
#include <cstdint>
#include <vector>

#include "topo/network_settings.hpp"
#include "topo/platform.hpp"

namespace evb::simnet {

// The settings are the platform file's (topo/network_settings.hpp), so that
// the topology layer reads them without depending on the simulator.
using Queueing = topo::Queueing;
using Switching = topo::Switching;
using NetworkParams = topo::NetworkSettings;

// What a message carries, for the SL-to-VL rule (NetworkParams::vl_map): a
// command (the event builders' small control messages) or data.
enum class Traffic { data, command };

// A message whose last byte reached its destination host.
struct Delivery {
  uint64_t message = 0;  // what send() returned
  int64_t time_ns = 0;   // when its last byte arrived
};

// What explains a collapse, per directional link (Platform::links index).
struct LinkStats {
  uint64_t bytes = 0;          // carried
  int64_t busy_ns = 0;         // time spent transmitting
  int64_t credit_wait_ns = 0;  // time a chunk at the head waited for room beyond the link
};

class CreditNetwork {
 public:
  // `platform` must outlive the network (finish()ed: routes known). `lanes`
  // (>= 1): connections per host pair. Throws evb::ConfigError naming the
  // platform when a chunk is empty, longer than 1 GiB or (finite buffers)
  // larger than a buffer, or a platform has fewer than 2 hosts; evb::Error
  // when `lanes` is below 1 or the queue pairs would not fit 32-bit indices.
  CreditNetwork(const topo::Platform& platform, const NetworkParams& params, int lanes = 1);
  ~CreditNetwork();
  CreditNetwork(const CreditNetwork&) = delete;
  CreditNetwork& operator=(const CreditNetwork&) = delete;

  // A message of `bytes` (>= 1) from host `src` to host `dst` (src != dst)
  // on connection `lane` of the pair, handed to the source NIC at `now_ns`,
  // which is never before the time of the last send() or advance(). Returns
  // its id (1, 2, 3, ...). Events before `now_ns` that advance() has not run
  // yet run first; what they deliver comes out of the next advance(). Throws
  // evb::Error for a host or lane out of range, src == dst, 0 bytes or a
  // time in the past.
  // `traffic` picks its virtual lane with NetworkParams::vl_map.
  uint64_t send(int src, int dst, uint64_t bytes, int64_t now_ns, int lane = 0,
                Traffic traffic = Traffic::data);

  // The time of the next internal event; INT64_MAX when nothing is in flight
  // (the time of the last send() while deliveries wait for advance()).
  int64_t next_event_ns() const;

  // Runs every internal event at or before `t_ns` (>= the last time given)
  // and appends each message delivered by then to `delivered`, in time order
  // (ties in any order). Messages of one connection (src, dst, lane) are
  // delivered in the order they were sent.
  void advance(int64_t t_ns, std::vector<Delivery>& delivered);

  const std::vector<LinkStats>& link_stats() const;
  // Internal events processed so far (the simulator's own cost figure).
  uint64_t events_processed() const;
  // Messages sent and not yet delivered. Non-zero with next_event_ns() ==
  // INT64_MAX means the fabric deadlocked (routes with a credit cycle).
  uint64_t in_flight() const;
  // Messages of host `src` whose last chunk has not yet left its NIC.
  uint64_t queued_at_nic(int src) const;
  const NetworkParams& params() const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace evb::simnet
