#pragma once
// PeerBook: what a driver knows of each rank it connects to, indexed by rank.
//
// A peer is none (not connected to), connecting, open, closed (it said
// goodbye) or lost. add() counts it as up once; go_down() takes an up peer
// down exactly once, so a driver that acts only when it returns true gives
// each peer one peer_event and fails what waits on it once. The book also
// keeps each peer's hello (the run id and number of ranks it announced)
// against this run's, and the counts that decide what an any-peer receive
// gets once every peer is gone. It holds no connection of its own: the
// library handles (endpoint, queue pair, socket) stay in the driver.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "drivers/api/driver.hpp"

namespace evb {

enum class PeerState : uint8_t { none, connecting, open, closed, lost };

class PeerBook {
 public:
  explicit PeerBook(int ranks = 0) { resize(ranks); }
  void resize(int ranks) { peers_.resize(ranks > 0 ? static_cast<size_t>(ranks) : 0); }
  int ranks() const { return static_cast<int>(peers_.size()); }
  bool valid(PeerId peer) const { return peer >= 0 && peer < ranks(); }

  // none for a peer that is no rank of the run.
  PeerState state(PeerId peer) const { return valid(peer) ? peers_[peer].state : PeerState::none; }
  bool known(PeerId peer) const { return state(peer) != PeerState::none; }
  bool is_open(PeerId peer) const { return state(peer) == PeerState::open; }
  bool up(PeerId peer) const {
    const PeerState s = state(peer);
    return s == PeerState::open || s == PeerState::connecting;
  }

  // Counts `peer` as up (connecting or open); a peer added twice counts once.
  void add(PeerId peer, PeerState as = PeerState::open);
  // connecting -> open (the hellos are in).
  void set_open(PeerId peer);
  // Takes an up peer down: closed for peer_closed, lost otherwise. True
  // once per peer (the caller then queues its peer_event and fails what
  // waits on it); false for a peer already down or never up.
  bool go_down(PeerId peer, OpStatus status);
  // A closed peer that then fails is lost after all (its bye came, but
  // this rank still had to send its own): true when it was closed.
  bool lose_closed(PeerId peer);

  size_t open_count() const { return open_; }
  bool had_peers() const { return had_peers_; }
  bool any_lost() const { return lost_ > 0; }
  // Every peer this rank had is down: any-peer receives can never match.
  bool all_down() const { return had_peers_ && open_ == 0; }
  // What an any-peer receive gets once all are down.
  OpStatus any_status() const { return lost_ > 0 ? OpStatus::peer_lost : OpStatus::peer_closed; }
  // What an operation for a peer that is down gets.
  OpStatus down_status(PeerId peer) const {
    return state(peer) == PeerState::lost ? OpStatus::peer_lost : OpStatus::peer_closed;
  }

  // --- hellos: each peer announces the run id and the number of ranks ---
  // connect()'s first step: refuses an address list that is not one
  // address per rank (Error "WHO: N addresses for M ranks") and takes this
  // run's id from it (control_message.hpp, run_id()).
  void begin(const std::string& who, const std::vector<std::string>& addresses);
  void set_run(uint64_t run_id) { run_id_ = run_id; }
  uint64_t run() const { return run_id_; }
  void hello(PeerId from, uint64_t run_id, uint32_t ranks);
  bool hello_in(PeerId peer) const { return valid(peer) && peers_[peer].hello; }
  // Its hello is in and names another run (run id or number of ranks).
  bool foreign(PeerId peer) const;

 private:
  struct Entry {
    PeerState state = PeerState::none;
    bool hello = false;
    uint64_t hello_run = 0;
    uint32_t hello_ranks = 0;
  };
  std::vector<Entry> peers_;
  uint64_t run_id_ = 0;
  size_t open_ = 0;
  size_t lost_ = 0;
  bool had_peers_ = false;
};

}  // namespace evb
