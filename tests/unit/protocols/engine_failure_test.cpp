// Under on_failure abort the Engine ends the run at the first failed
// completion with one error; when several peers failed in the same poll
// (a rank killed, and the EVM that stopped because of it), which one a
// survivor sees first is chance, so the error names every one of them.
#include <gtest/gtest.h>

#include "../support/recording_driver.hpp"
#include "core/error.hpp"
#include "protocols/common/engine.hpp"

namespace evb {
namespace {

// Waits for ever: only a failure ends the run.
class Idle final : public Agent {
 public:
  void start(int64_t) override {}
  void on_completion(const Completion&) override {}
  bool done() const override { return false; }
  std::string waiting_for() const override { return "nothing"; }
};

Completion lost(PeerId peer) {
  Completion c;
  c.type = OpType::peer_event;
  c.status = OpStatus::peer_lost;
  c.peer = peer;
  return c;
}

TEST(EngineFailure, NamesEveryPeerThatFailedInTheSamePoll) {
  Config c;
  c.nodes = 2;
  test_support::RecordingDriver driver;
  driver.pending = {lost(2), lost(1), lost(2)};  // the EVM first, then the RU it lost
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1 (RU 1)", "rank 2 (EVM)"});
  Idle idle;
  engine.add_agent(&idle);
  try {
    engine.run();
    FAIL() << "the run ended without an error";
  } catch (const PeerError& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.peer(), 2);
    EXPECT_EQ(what, "rank 0: rank 2 (EVM) disappeared; rank 1 (RU 1) disappeared") << what;
  }
}

TEST(EngineFailure, AFailureAloneNamesOnlyItsPeer) {
  Config c;
  c.nodes = 2;
  test_support::RecordingDriver driver;
  Completion ok;
  ok.peer = 1;
  driver.pending = {ok, lost(1)};
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1 (RU 1)", "rank 2 (EVM)"});
  Idle idle;
  engine.add_agent(&idle);
  EXPECT_THROW(
      {
        try {
          engine.run();
        } catch (const PeerError& e) {
          EXPECT_STREQ(e.what(), "rank 0: rank 1 (RU 1) disappeared");
          throw;
        }
      },
      PeerError);
}

}  // namespace
}  // namespace evb
