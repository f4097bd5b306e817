#pragma once
// take_peer_down: the one way every driver takes a peer down.
//
// A peer closes (its goodbye came) or is lost (its connection broke, its
// process died). Whatever noticed it, the driver then does the same five
// things in the same order, here and nowhere else:
//   1. mark it down in the peer book (once: a second notice does nothing);
//   2. record why as the last error: always for a lost peer (the latest
//      loss is the news), for a closed one only when nothing is recorded
//      yet (a clean goodbye must not hide an earlier failure, but a run
//      that fails on an early goodbye still says which peer left);
//   3. report its one peer_event;
//   4. cancel the driver's own operations for it (CancelPeer: sends and
//      writes held or in flight, receives posted for it, its connection);
//   5. once every peer is down, fail the any-peer receives (FailAny: they
//      can never match now), with the book's any_status().
// A transport whose closed peer can still fail afterwards (an RC queue pair
// reports errors on completions after the goodbye: LateLoss::counts) takes
// such a peer from closed to lost: steps 2, 4 and 5 run again with the
// loss, step 3 does not (the peer had its event).
#include <string>

#include "drivers/api/driver.hpp"
#include "drivers/common/completions.hpp"
#include "drivers/common/peer_book.hpp"

namespace evb {

// Whether a loss reported after a peer's goodbye counts (see above).
enum class LateLoss : bool { ignored, counts };

// Returns true when the peer went down now (or from closed to lost).
template <class CancelPeer, class FailAny>
bool take_peer_down(PeerBook& book, Completions& done, PeerId peer, OpStatus status,
                    const std::string& why, LateLoss late, CancelPeer&& cancel_peer,
                    FailAny&& fail_any) {
  const bool lost = status != OpStatus::peer_closed;
  const bool went_down = book.go_down(peer, status);
  if (!went_down && !(late == LateLoss::counts && lost && book.lose_closed(peer))) return false;
  if (lost || done.last_error().empty()) done.note(why);
  if (went_down) done.peer_event(peer, lost ? OpStatus::peer_lost : OpStatus::peer_closed);
  cancel_peer(peer, lost ? OpStatus::peer_lost : OpStatus::peer_closed, why);
  if (book.all_down()) fail_any(book.any_status(), why);
  return true;
}

}  // namespace evb
