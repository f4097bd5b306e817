// The connection chassis the drivers share: the peer book, the hello wait
// and the ready queue with its last error (src/drivers/common).
#include "drivers/common/peer_book.hpp"

#include <gtest/gtest.h>

#include "drivers/common/completions.hpp"
#include "drivers/common/hello_wait.hpp"
#include "drivers/common/peer_down.hpp"

namespace evb {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kRun = 7;

// A book of `ranks` ranks of run kRun with `peers` open.
PeerBook book_of(int ranks, const std::vector<PeerId>& peers) {
  PeerBook book(ranks);
  book.set_run(kRun);
  for (PeerId p : peers) book.add(p);
  return book;
}

TEST(PeerBook, APeerGoesDownOnceAndTheCountsFollow) {
  PeerBook book(4);
  book.add(1);
  book.add(2, PeerState::connecting);
  book.add(2, PeerState::connecting);  // counted once
  EXPECT_EQ(book.open_count(), 2u);
  EXPECT_TRUE(book.up(2));
  EXPECT_FALSE(book.is_open(2));
  book.set_open(2);
  EXPECT_TRUE(book.is_open(2));

  EXPECT_FALSE(book.go_down(3, OpStatus::peer_lost));  // never up
  EXPECT_FALSE(book.go_down(7, OpStatus::peer_lost));  // no rank
  EXPECT_TRUE(book.go_down(1, OpStatus::peer_closed));
  EXPECT_FALSE(book.go_down(1, OpStatus::peer_lost));  // one event per peer
  EXPECT_EQ(book.state(1), PeerState::closed);
  EXPECT_EQ(book.down_status(1), OpStatus::peer_closed);
  EXPECT_FALSE(book.all_down());
  EXPECT_TRUE(book.go_down(2, OpStatus::peer_lost));
  EXPECT_TRUE(book.all_down());
  EXPECT_EQ(book.any_status(), OpStatus::peer_lost);
  EXPECT_EQ(book.down_status(2), OpStatus::peer_lost);
}

TEST(PeerBook, AnyPeerStatusIsClosedWhenEveryPeerSaidGoodbye) {
  PeerBook book(3);
  EXPECT_FALSE(book.all_down());  // no peers yet: nothing to be down
  book.add(0);
  book.add(2);
  EXPECT_TRUE(book.go_down(0, OpStatus::peer_closed));
  EXPECT_TRUE(book.go_down(2, OpStatus::peer_closed));
  EXPECT_TRUE(book.all_down());
  EXPECT_EQ(book.any_status(), OpStatus::peer_closed);
  // A closed peer that fails afterwards is lost after all, once.
  EXPECT_TRUE(book.lose_closed(2));
  EXPECT_FALSE(book.lose_closed(2));
  EXPECT_EQ(book.any_status(), OpStatus::peer_lost);
}

TEST(PeerBook, AHelloOfAnotherRunIsForeign) {
  PeerBook book(3);
  book.set_run(42);
  book.hello(1, 42, 3);
  book.hello(2, 43, 3);
  EXPECT_TRUE(book.hello_in(1));
  EXPECT_FALSE(book.foreign(1));
  EXPECT_TRUE(book.foreign(2));
  book.hello(2, 42, 4);  // same run id, other size
  EXPECT_TRUE(book.foreign(2));
  EXPECT_FALSE(book.hello_in(0));
  EXPECT_FALSE(book.foreign(0));
}

TEST(HelloWait, NamesEveryRankStillSilent) {
  const std::vector<PeerId> peers{1, 2, 4};
  PeerBook book = book_of(5, peers);
  int steps = 0;
  const HelloWait w = await_hellos(
      book, peers, Clock::now(),
      [&] {
        ++steps;
        book.hello(2, kRun, 5);
      },
      [](PeerId) { return true; });
  EXPECT_GE(steps, 1);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.missing, (std::vector<PeerId>{1, 4}));
  const PeerError e = hello_failure(
      w, HelloWords{"drv: rank 0", "", "", " (tail)", std::chrono::milliseconds(250)});
  EXPECT_EQ(e.peer(), 1);
  EXPECT_STREQ(e.what(), "drv: rank 0: no hello exchanged with rank(s) 1, 4 within 250 ms (tail)");
}

TEST(HelloWait, StopsAtALostOrForeignPeer) {
  const std::vector<PeerId> peers{1, 2};
  PeerBook book = book_of(3, peers);
  const auto far = Clock::now() + std::chrono::hours(1);
  book.hello(2, kRun + 1, 3);
  HelloWait w = await_hellos(
      book, peers, far, [] {}, [](PeerId) { return true; });
  EXPECT_EQ(w.foreign, 2);
  EXPECT_STREQ(hello_failure(w, HelloWords{"drv: rank 0"}).what(),
               "drv: rank 0: rank 2 belongs to another run (its hello does not match this run's "
               "addresses)");
  book.go_down(1, OpStatus::peer_lost);
  w = await_hellos(
      book, peers, far, [] {}, [](PeerId) { return true; });
  EXPECT_EQ(w.lost, 1);
  const PeerError e = hello_failure(w, HelloWords{"drv: rank 0", "reset", " (hint)"});
  EXPECT_EQ(e.peer(), 1);
  EXPECT_STREQ(e.what(), "drv: rank 0: rank 1 was lost while connecting: reset (hint)");
}

TEST(HelloWait, WaitsUntilThisRanksSideIsSettledToo) {
  const std::vector<PeerId> peers{1};
  PeerBook book = book_of(2, peers);
  book.hello(1, kRun, 2);
  int steps = 0;
  const HelloWait w = await_hellos(
      book, peers, Clock::now() + std::chrono::hours(1), [&] { ++steps; },
      [&](PeerId) { return steps >= 3; });
  EXPECT_TRUE(w.ok());
  EXPECT_EQ(steps, 3);
}

TEST(Completions, KeepsTheOrderAndTheLastReasonGiven) {
  Completions q;
  q.fail(OpType::send, 1, 5, 11, OpStatus::error, "first");
  q.peer_event(1, OpStatus::peer_lost);
  q.fail(OpType::recv, 1, 6, 12, OpStatus::peer_lost, {});  // no reason: the last one stays
  q.remote_write(2, 64, 9);
  EXPECT_EQ(q.last_error(), "first");
  Completion out[3];
  ASSERT_EQ(q.drain(out), 3u);
  EXPECT_EQ(out[0].cookie, 11u);
  EXPECT_EQ(out[0].status, OpStatus::error);
  EXPECT_EQ(out[1].type, OpType::peer_event);
  EXPECT_EQ(out[1].peer, 1);
  EXPECT_EQ(out[2].type, OpType::recv);
  EXPECT_EQ(out[2].tag, 6u);
  ASSERT_EQ(q.drain(out), 1u);
  EXPECT_EQ(out[0].type, OpType::remote_write);
  EXPECT_EQ(out[0].bytes, 64u);
  EXPECT_EQ(out[0].immediate, 9u);
  EXPECT_TRUE(q.empty());
  q.note("second");
  EXPECT_EQ(q.last_error(), "second");
}

std::string status_text(OpStatus st) {
  return st == OpStatus::peer_lost     ? "peer_lost"
         : st == OpStatus::peer_closed ? "peer_closed"
                                       : "?";
}

// What take_peer_down did, step by step, as text.
struct PeerDownLog {
  std::vector<std::string> steps;
  bool down(PeerBook& book, Completions& q, PeerId peer, OpStatus status, const std::string& why,
            LateLoss late = LateLoss::ignored) {
    return take_peer_down(
        book, q, peer, status, why, late,
        [&](PeerId p, OpStatus st, const std::string& r) {
          steps.push_back("cancel " + std::to_string(p) + " " + status_text(st) + " " + r);
        },
        [&](OpStatus st, const std::string& r) {
          steps.push_back("any " + status_text(st) + " " + r);
        });
  }
};

TEST(TakePeerDown, OneOrderOneEventAndAnyPeerReceivesLast) {
  PeerBook book = book_of(3, {1, 2});
  Completions q;
  PeerDownLog log;
  EXPECT_TRUE(log.down(book, q, 1, OpStatus::peer_closed, "1 said bye"));
  EXPECT_FALSE(log.down(book, q, 1, OpStatus::peer_lost, "late"));  // already down: nothing
  EXPECT_TRUE(log.down(book, q, 2, OpStatus::peer_lost, "2 vanished"));
  ASSERT_EQ(log.steps.size(), 3u);
  EXPECT_EQ(log.steps[0], "cancel 1 peer_closed 1 said bye");
  EXPECT_EQ(log.steps[1], "cancel 2 peer_lost 2 vanished");
  EXPECT_EQ(log.steps[2], "any peer_lost 2 vanished");  // nobody left, one was lost
  Completion out[4];
  ASSERT_EQ(q.drain(out), 2u);  // one peer_event per peer, in the order they went
  EXPECT_EQ(out[0].type, OpType::peer_event);
  EXPECT_EQ(out[0].peer, 1);
  EXPECT_EQ(out[0].status, OpStatus::peer_closed);
  EXPECT_EQ(out[1].peer, 2);
  EXPECT_EQ(out[1].status, OpStatus::peer_lost);
}

TEST(TakePeerDown, AGoodbyeNeverHidesAnEarlierFailure) {
  PeerBook book = book_of(4, {1, 2, 3});
  Completions q;
  PeerDownLog log;
  log.down(book, q, 1, OpStatus::peer_closed, "1 said bye");
  EXPECT_EQ(q.last_error(), "1 said bye");  // nothing recorded before: the goodbye is
  log.down(book, q, 2, OpStatus::peer_lost, "2 vanished");
  EXPECT_EQ(q.last_error(), "2 vanished");  // a loss is always the news
  log.down(book, q, 3, OpStatus::peer_closed, "3 said bye");
  EXPECT_EQ(q.last_error(), "2 vanished");
}

TEST(TakePeerDown, ALossAfterTheGoodbyeCountsOnlyWhereTheTransportSaysSo) {
  PeerBook book = book_of(2, {1});
  Completions q;
  PeerDownLog ignored;
  ignored.down(book, q, 1, OpStatus::peer_closed, "bye");
  EXPECT_FALSE(ignored.down(book, q, 1, OpStatus::peer_lost, "qp error"));
  EXPECT_EQ(book.state(1), PeerState::closed);

  PeerDownLog counts;
  EXPECT_TRUE(counts.down(book, q, 1, OpStatus::peer_lost, "qp error", LateLoss::counts));
  EXPECT_EQ(book.state(1), PeerState::lost);
  EXPECT_EQ(q.last_error(), "qp error");
  ASSERT_EQ(counts.steps.size(), 2u);
  EXPECT_EQ(counts.steps[0], "cancel 1 peer_lost qp error");
  EXPECT_EQ(counts.steps[1], "any peer_lost qp error");
  Completion out[2];
  EXPECT_EQ(q.drain(out), 1u);  // the bye's peer_event only: no second one
  EXPECT_FALSE(counts.down(book, q, 1, OpStatus::peer_lost, "again", LateLoss::counts));
}

}  // namespace
}  // namespace evb
