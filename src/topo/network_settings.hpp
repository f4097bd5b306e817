#pragma once
// The credit model's network parameters (the platform file's `network:`
// section, docs/TOPOLOGY.md): plain settings the topology layer reads and
// evb::simnet::CreditNetwork (src/sim/credit/network.hpp) runs with. They
// live here so that topo never depends on the simulator.
#include <cstdint>
#include <string>

namespace evb::topo {

// How a switch input port queues what it holds: one FIFO whose head alone
// may leave (head-of-line blocking), or one queue per output port.
enum class Queueing { fifo, voq };
// When a chunk may start on the next link: once its head has arrived, or
// once all of it has.
enum class Switching { cut_through, store_and_forward };
// Which virtual lane a message's chunks take (with virtual_lanes > 1), as a
// subnet manager's SL-to-VL table would put them: `traffic`, commands on
// VL 0 and data spread over VLs 1 .. N-1 by destination host (mod N-1);
// `destination`, every message on VL (destination host mod N).
enum class VlMap { traffic, destination };
// The most virtual lanes a port may have (InfiniBand: 15 data VLs).
constexpr int kMaxVirtualLanes = 15;

struct NetworkSettings {
  uint64_t chunk_bytes = 32 * 1024;    // messages are cut into chunks of this size
  uint64_t buffer_bytes = 256 * 1024;  // per switch input port
  Queueing queueing = Queueing::fifo;
  Switching switching = Switching::cut_through;
  bool infinite_buffers = false;  // no credit ever runs out (output queueing)
  // End-to-end window: the most chunks one connection (queue pair) may have
  // between its NIC and its destination host; its next chunk waits at the
  // source until one arrives. 0: no window. With infinite buffers a small
  // window keeps data at its source, as the fluid model does (docs/SCALE.md).
  uint32_t flow_window = 0;
  // A message of at most one MTU leaves its NIC ahead of the queue pairs'
  // chunks: a NIC interleaves its queue pairs a packet (an MTU) at a time,
  // the model a chunk at a time, so a command would otherwise wait behind a
  // whole chunk of every busy queue pair. 0: no such lane (not from a file).
  uint64_t mtu_bytes = 4096;
  // Virtual lanes per link: each switch input port has `buffer_bytes` per VL,
  // with credits and a FIFO (or voq) of its own; 1 is a port with one buffer.
  int virtual_lanes = 1;
  VlMap vl_map = VlMap::traffic;
};

// The words the platform file uses ("fifo", "voq"; "cut-through",
// "store-and-forward").
const char* queueing_name(Queueing q);
// The largest network.flow_window a platform file may set (chunks).
constexpr int64_t kMaxFlowWindow = 1 << 20;
const char* switching_name(Switching s);
// "traffic", "destination".
const char* vl_map_name(VlMap m);

}  // namespace evb::topo
