#pragma once
// Who a congestor rank sends to and hears from: the pattern of its
// `background` entry over the entry's ranks (member 0 is the incast's target
// and the bcast's root). Pure, so the patterns are tested without a network.
#include <cstddef>
#include <vector>

#include "core/config.hpp"
#include "core/topology.hpp"
#include "protocols/api/memory_need.hpp"

namespace evb {

// One member's part of its entry's pattern. `writes`: the data goes as
// one-sided writes into the target's window (write-incast), the
// end-of-traffic messages two-sided as for the other patterns.
struct CongestorPlan {
  std::vector<int> targets;  // ranks this member sends (or writes) to
  std::vector<int> sources;  // ranks that send (or write) to it
  bool writes = false;
};

// `members`: the entry's ranks by member index; `member`: this rank's index.
CongestorPlan plan_congestor(const BackgroundSpec& spec, const std::vector<int>& members,
                             int member);

// The buffers a member allocates for its part (bytes before page rounding),
// what CongestorRun sizes them with and the memory check counts.
struct CongestorBuffers {
  static constexpr size_t kSmall = 4096;  // key and done receives, key bytes sent
  static constexpr size_t kAckSlot = 64;  // bytes of one ack receive
  size_t send = 0;                        // the message it sends (and the key)
  size_t recv = 0;    // in_flight receives per source (write-incast: a small one each)
  size_t ack = 0;     // a sender's ack and fin receives (0: none)
  size_t window = 0;  // write-incast target: what its sources write into (0: none)
};
CongestorBuffers congestor_buffers(const BackgroundSpec& spec, const CongestorPlan& plan);

// The memory check's view of congestor rank `rank` (topo.congestor(rank)
// set): its buffers as one need, "background buffers", sized by the
// `background` entry (its size, in_flight and ranks).
std::vector<MemoryNeed> congestor_memory(const Config& config, const Topology& topo, int rank);

}  // namespace evb
