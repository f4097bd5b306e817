// Waiting for the peers' hellos (hello_wait.hpp).
#include "drivers/common/hello_wait.hpp"

#include "drivers/common/step_until.hpp"

namespace evb {

PeerId HelloWait::first() const {
  if (lost != kAnyPeer) return lost;
  if (foreign != kAnyPeer) return foreign;
  return missing.empty() ? kAnyPeer : missing.front();
}

HelloWait await_hellos(const PeerBook& book, std::span<const PeerId> peers,
                       std::chrono::steady_clock::time_point deadline,
                       const std::function<void()>& step,
                       const std::function<bool(PeerId)>& settled) {
  HelloWait w;
  auto done = [&] {
    bool all = true;
    for (PeerId peer : peers) {
      if (book.state(peer) == PeerState::lost) w.lost = peer;
      if (book.foreign(peer)) w.foreign = peer;
      if (w.lost != kAnyPeer || w.foreign != kAnyPeer) return true;  // reported as it is
      if (!book.hello_in(peer) || !settled(peer)) all = false;
    }
    return all;
  };
  if (step_until(step, done, deadline)) return w;
  w.timed_out = true;
  for (PeerId peer : peers) {
    if (!book.hello_in(peer) || !settled(peer)) w.missing.push_back(peer);
  }
  return w;
}

PeerError hello_failure(const HelloWait& wait, const HelloWords& words) {
  const std::string who = words.who + ": ";
  if (wait.lost != kAnyPeer)
    return PeerError(wait.lost, who + "rank " + std::to_string(wait.lost) +
                                    " was lost while connecting: " + words.last_error +
                                    words.lost_hint);
  if (wait.foreign != kAnyPeer)
    return PeerError(wait.foreign, who + "rank " + std::to_string(wait.foreign) +
                                       " belongs to another run (its hello does not match this "
                                       "run's addresses)");
  const std::string list = rank_list(wait.missing);
  return PeerError(wait.first(), who + "no hello exchanged with rank(s) " +
                                     (list.empty() ? "?" : list) + " within " +
                                     std::to_string(words.timeout.count()) + " ms" +
                                     words.timeout_tail);
}

std::string rank_list(std::span<const PeerId> ranks) {
  std::string list;
  for (PeerId r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
  return list;
}

}  // namespace evb
