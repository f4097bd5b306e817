#pragma once
// The fabric's state in the credit model, built once from a topo::Platform.
// Per directional link: its timing and the chunks on the wire; per link and
// virtual lane (VL), the credits left in the input buffer at its far end and
// that buffer's queue(s). Per switch output (a link leaving a switch) and
// VL: the arbiter, a bit per input port with a chunk on that VL waiting for
// it, and the port served last; per output, the VL served last. A FIFO
// input (per VL) feeds one
// chunk at a time (the next becomes the head once the previous one has
// wholly left); with voq the heads of an input's queues leave
// independently, as from a shared-memory switch. With infinite buffers the
// engine queues chunks per flow at the outputs instead (fair_queues.hpp) and
// neither the input queues nor the arbiters here are used. The Fabric owns
// all of it; the engine (engine.hpp) moves the chunks.
#include <bit>
#include <cstdint>
#include <vector>

#include "sim/credit/pools.hpp"
#include "topo/network_settings.hpp"
#include "topo/platform.hpp"

namespace evb::simnet {

// One directional link and the input port at its far end.
struct LinkState {
  double ps_per_byte = 0;  // serialisation
  int64_t latency_ps = 0;
  bool limited = false;     // credits count (a switch's input port, finite buffers)
  bool from_host = false;   // the source NIC feeds it
  bool to_host = false;     // it ends at a destination NIC
  bool busy = false;        // a chunk is being transmitted
  int from_port = 0;        // output port on the near switch
  int to_port = 0;          // input port on the far switch (arbiter bit)
  int from_node = -1;       // near node (Platform::nodes)
  int to_node = -1;         // far node
  int host = -1;            // from_host: the host index
  int tx_from = -1;         // the link whose buffer the chunk being sent left (-1: NIC)
  uint64_t tx_bytes = 0;    // size of that chunk
  int tx_vl = 0;            // and its virtual lane
  int64_t wait_since = -1;  // a chunk has been waiting for credits since (ps)
  uint32_t mask_base = 0;   // leaving a switch: its arbiters' words in Fabric::masks, VL by VL
  uint32_t voq_base = 0;    // entering a switch, voq: its queues in Fabric::voqs
  Queue wire;               // chunks transmitted, not yet arrived, in arrival order
  int rr = 0;               // leaving a switch: the VL served last
  // Figures (LinkStats in ps).
  uint64_t bytes = 0;
  int64_t busy_ps = 0;
  int64_t credit_wait_ps = 0;
};

// One virtual lane of the input buffer at a link's far end.
struct InputVl {
  int64_t credits = 0;   // free bytes
  Queue fifo;            // fifo: arrived chunks
  bool feeding = false;  // fifo: its head is leaving
  int rr = 0;            // the link leaving a switch: the input port it served last on this VL
};

class Fabric {
 public:
  Fabric(const topo::Platform& platform, const topo::NetworkSettings& params);

  std::vector<LinkState> links;
  std::vector<InputVl> inputs;      // per (link, VL): link * vls + vl
  int vls = 1;                      // virtual lanes per link
  std::vector<uint64_t> masks;      // output arbiters: words[node] words per VL
  std::vector<Queue> voqs;          // voq: per (input link, VL, output port)
  std::vector<int> words;           // per node: words of a port bit set (switches)
  std::vector<uint32_t> ports;      // per node: its ports
  std::vector<uint32_t> port_base;  // per node: start of its ports in in_links
  std::vector<int> in_links;        // (switch, input port) -> link entering there
  bool per_output_queues = false;   // voq (and finite buffers)

  int64_t serialisation_ps(const LinkState& l, uint64_t bytes) const {
    // Both factors are positive, so + 0.5 rounds; no libm call on the hot path.
    const double ps = static_cast<double>(bytes) * l.ps_per_byte;
    return static_cast<int64_t>(ps + 0.5);  // NOLINT(bugprone-incorrect-roundings)
  }
  uint64_t* mask(const LinkState& out, int vl) {
    return masks.data() + out.mask_base + vl * words[out.from_node];
  }
  int in_link(int node, int port) const { return in_links[port_base[node] + port]; }
  InputVl& input(int link, int vl) { return inputs[static_cast<size_t>(link) * vls + vl]; }
  Queue& voq(const LinkState& in, int vl, int out_port) {
    return voqs[in.voq_base + static_cast<uint32_t>(vl) * ports[in.to_node] + out_port];
  }

  // The first port after `rr` (cyclically) set in the `n`-word `m`; -1
  // when none.
  static int next_port(const uint64_t* m, int n, int rr) {
    const int start = rr + 1;
    for (int w = start >> 6; w < n; ++w) {
      uint64_t bits = m[w];
      if (w == (start >> 6)) bits &= ~uint64_t{0} << (start & 63);
      if (bits) return (w << 6) + std::countr_zero(bits);
    }
    for (int w = 0; w < n && w <= (rr >> 6); ++w)
      if (m[w]) return (w << 6) + std::countr_zero(m[w]);
    return -1;
  }
  static void set_bit(uint64_t* m, int port) { m[port >> 6] |= uint64_t{1} << (port & 63); }
  static void clear_bit(uint64_t* m, int port) { m[port >> 6] &= ~(uint64_t{1} << (port & 63)); }
};

}  // namespace evb::simnet
