// A rank whose protocol is done keeps polling while its driver still owes
// peers something it moves only inside poll() (the ucx driver's notifies of
// writes already reported complete): leaving for the bootstrap's barrier
// would strand them, and the peer waiting for them with it.
#include <gtest/gtest.h>

#include "../support/recording_driver.hpp"
#include "protocols/common/engine.hpp"

namespace evb {
namespace {

// Done from the start.
class Finished final : public Agent {
 public:
  void start(int64_t) override {}
  void on_completion(const Completion&) override {}
  bool done() const override { return true; }
  std::string waiting_for() const override { return "nothing"; }
};

TEST(EngineOwed, ADoneRankPollsUntilItsDriverOwesNothing) {
  Config c;
  c.nodes = 2;
  test_support::RecordingDriver driver;
  driver.owed = 5;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1"});
  Finished finished;
  engine.add_agent(&finished);
  engine.run();
  EXPECT_EQ(driver.owed, 0u) << "the run ended with operations still owed to peers";
  EXPECT_GE(driver.polls, 5u);
}

TEST(EngineOwed, NothingOwedEndsAtOnce) {
  Config c;
  c.nodes = 2;
  test_support::RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1"});
  Finished finished;
  engine.add_agent(&finished);
  engine.run();
  EXPECT_LE(driver.polls, 1u);
}

}  // namespace
}  // namespace evb
