// The drivers' peer table (peer_book.hpp).
#include "drivers/common/peer_book.hpp"

#include "core/error.hpp"
#include "drivers/common/control_message.hpp"

namespace evb {

void PeerBook::add(PeerId peer, PeerState as) {
  if (!valid(peer)) return;
  Entry& e = peers_[peer];
  if (e.state == PeerState::none) {
    ++open_;
    had_peers_ = true;
  }
  e.state = as;
}

void PeerBook::set_open(PeerId peer) {
  if (state(peer) == PeerState::connecting) peers_[peer].state = PeerState::open;
}

bool PeerBook::go_down(PeerId peer, OpStatus status) {
  if (!up(peer)) return false;
  const bool lost = status != OpStatus::peer_closed;
  peers_[peer].state = lost ? PeerState::lost : PeerState::closed;
  --open_;
  if (lost) ++lost_;
  return true;
}

bool PeerBook::lose_closed(PeerId peer) {
  if (state(peer) != PeerState::closed) return false;
  peers_[peer].state = PeerState::lost;
  ++lost_;
  return true;
}

void PeerBook::begin(const std::string& who, const std::vector<std::string>& addresses) {
  if (addresses.size() != peers_.size())
    throw Error(who + ": " + std::to_string(addresses.size()) + " addresses for " +
                std::to_string(peers_.size()) + " ranks");
  run_id_ = run_id(addresses);
}

void PeerBook::hello(PeerId from, uint64_t run_id, uint32_t ranks) {
  if (!valid(from)) return;
  Entry& e = peers_[from];
  e.hello = true;
  e.hello_run = run_id;
  e.hello_ranks = ranks;
}

bool PeerBook::foreign(PeerId peer) const {
  if (!hello_in(peer)) return false;
  const Entry& e = peers_[peer];
  return e.hello_run != run_id_ || e.hello_ranks != static_cast<uint32_t>(ranks());
}

}  // namespace evb
