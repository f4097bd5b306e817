#pragma once
// Connections: which lane of its host pair a message travels on in the
// credit model's network (CreditNetwork's connections, each delivered in
// order). A lane is a rank pair and a stream. Ranks that share a host are
// numbered 0, 1, ... on it in rank order, so every rank pair has lanes of its
// own, as a queue pair per pair of processes has on a real NIC: a rank's
// messages to one peer never wait behind another rank's on the same hosts.
// The streams are two: commands (the event builders' channels, the monitor's
// and control) and data (fragments, one-sided writes, and the
// micro-benchmarks' messages with their commands, which keep their order). A command does not
// wait behind a megabyte of data to the same peer, as on an RDMA transport
// whose large messages move by rendezvous while small ones go eagerly (an MPI
// library; the fluid model's SMPI runs exactly that), and what the drivers
// promise still holds: messages of one tag keep their order
// (Capabilities::ordered_per_peer), because a tag names one channel.
#include <cstdint>
#include <vector>

#include "sim/exec/message.hpp"

namespace evb::simexec {

class Connections {
 public:
  static constexpr int kStreams = 2;  // commands, data
  static constexpr int kCommands = 0;
  static constexpr int kData = 1;

  // `rank_host[r]`: the host rank r runs on (>= 0).
  explicit Connections(const std::vector<int>& rank_host);

  // Lanes per host pair: kStreams per ordered pair of a host's ranks.
  int lanes() const { return per_host_ * per_host_ * kStreams; }
  // The lane of `m` (its src and dst ranks, its kind and tag).
  int lane(const Message& m) const {
    return (number_[m.src] * per_host_ + number_[m.dst]) * kStreams + stream(m);
  }
  static int stream(const Message& m);
  // The stream of a lane() (kCommands or kData).
  static int stream_of_lane(int lane) { return lane % kStreams; }

 private:
  std::vector<int> number_;  // by rank: its number among its host's ranks
  int per_host_ = 1;
};

}  // namespace evb::simexec
