// effective_poll_mode(): what `poll_mode` becomes for a rank, from the
// processes on its host, the host's logical CPUs and whether the driver can
// block.
#include "protocols/api/poll_mode.hpp"

#include <gtest/gtest.h>

#include "protocols/common/engine.hpp"

namespace evb {
namespace {

TEST(EffectivePollMode, AutoBusyPollsWhileProcessesFitTheCores) {
  for (bool can_block : {true, false}) {
    EXPECT_EQ(effective_poll_mode(PollMode::automatic, 1, 1, can_block), PollMode::busy);
    EXPECT_EQ(effective_poll_mode(PollMode::automatic, 2, 2, can_block), PollMode::busy);
    EXPECT_EQ(effective_poll_mode(PollMode::automatic, 3, 64, can_block), PollMode::busy);
  }
}

TEST(EffectivePollMode, AutoOversubscribedBlocksWhereTheDriverCanElseYields) {
  EXPECT_EQ(effective_poll_mode(PollMode::automatic, 3, 2, true), PollMode::block);
  EXPECT_EQ(effective_poll_mode(PollMode::automatic, 3, 2, false), PollMode::yield);
  EXPECT_EQ(effective_poll_mode(PollMode::automatic, 65, 64, true), PollMode::block);
  EXPECT_EQ(effective_poll_mode(PollMode::automatic, 5, 1, false), PollMode::yield);
}

TEST(EffectivePollMode, UnknownCoreCountCountsAsOne) {
  // std::thread::hardware_concurrency() may return 0.
  EXPECT_EQ(effective_poll_mode(PollMode::automatic, 1, 0, true), PollMode::busy);
  EXPECT_EQ(effective_poll_mode(PollMode::automatic, 2, 0, true), PollMode::block);
}

TEST(EffectivePollMode, ForcedModesAreKeptExceptBlockWithoutAWaitPrimitive) {
  for (int procs : {1, 8}) {
    for (bool can_block : {true, false}) {
      EXPECT_EQ(effective_poll_mode(PollMode::busy, procs, 2, can_block), PollMode::busy);
      EXPECT_EQ(effective_poll_mode(PollMode::yield, procs, 2, can_block), PollMode::yield);
    }
    EXPECT_EQ(effective_poll_mode(PollMode::block, procs, 2, true), PollMode::block);
    EXPECT_EQ(effective_poll_mode(PollMode::block, procs, 2, false), PollMode::yield);
  }
}

}  // namespace
}  // namespace evb
