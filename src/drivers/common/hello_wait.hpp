#pragma once
// Waiting for every peer's hello at connect(), and the one error that names
// what went wrong: the rank lost while connecting, the rank of another run,
// or every rank still silent when the time was up.
//
// A driver sends its hellos, then await_hellos() steps its progress until
// every peer's hello is in and `settled` says this rank's side is done too
// (its own hellos delivered), a peer is lost or foreign, or the deadline
// passes. hello_failure() words the outcome; the driver throws it.
#include <chrono>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "drivers/common/peer_book.hpp"

namespace evb {

struct HelloWait {
  PeerId lost = kAnyPeer;       // the first peer lost while connecting
  PeerId foreign = kAnyPeer;    // the first peer whose hello is of another run
  std::vector<PeerId> missing;  // the peers not settled when time was up
  bool timed_out = false;

  bool ok() const { return lost == kAnyPeer && foreign == kAnyPeer && !timed_out; }
  // The rank an error names first.
  PeerId first() const;
};

// How a driver words a failed wait. The error reads
//   WHO: rank N was lost while connecting: LAST_ERROR LOST_HINT
//   WHO: rank N belongs to another run (its hello does not match this run's addresses)
//   WHO: no hello exchanged with rank(s) 1, 2 within T ms TIMEOUT_TAIL
struct HelloWords {
  std::string who;  // "ucx: rank 3"
  std::string last_error;
  std::string lost_hint;
  std::string timeout_tail;
  std::chrono::milliseconds timeout{0};
};

// Steps until every peer in `peers` has said hello and `settled(peer)`, one
// is lost or foreign, or `deadline` passes.
HelloWait await_hellos(const PeerBook& book, std::span<const PeerId> peers,
                       std::chrono::steady_clock::time_point deadline,
                       const std::function<void()>& step,
                       const std::function<bool(PeerId)>& settled);

// The error for a wait that is not ok(): a PeerError naming wait.first().
PeerError hello_failure(const HelloWait& wait, const HelloWords& words);

// "1, 3, 4".
std::string rank_list(std::span<const PeerId> ranks);

}  // namespace evb
