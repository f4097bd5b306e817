// The EVM's bookkeeping under on_failure exclude: an excluded BU's events go
// back to a queue, are handed out again before new ids (also after
// assignment stopped), and the run drains only once they are built.
#include <gtest/gtest.h>

#include <stdexcept>

#include "units/event_manager.hpp"

namespace evb {
namespace {

TEST(Reassignment, ExcludedBuEventsGoToTheNextCreditFirst) {
  EventManager evm(3, 0);
  EXPECT_EQ(evm.assign(0), 0u);
  EXPECT_EQ(evm.assign(1), 1u);
  EXPECT_EQ(evm.assign(1), 2u);
  EXPECT_EQ(evm.assign(2), 3u);
  EXPECT_EQ(evm.exclude(1, {1, 2}), 2u);
  EXPECT_TRUE(evm.excluded(1));
  EXPECT_EQ(evm.active(), 2);
  EXPECT_EQ(evm.pending_reassignment(), 2u);
  EXPECT_FALSE(evm.assign(1).has_value());  // never again to the excluded BU
  EXPECT_EQ(evm.assign(2), 1u);             // the oldest reassigned event first
  EXPECT_EQ(evm.assign(0), 2u);
  EXPECT_EQ(evm.assign(0), 4u);  // then new ids again
  EXPECT_EQ(evm.reassigned(), 2u);
  EXPECT_EQ(evm.assigned(), 5u);  // ids handed out, each counted once
}

TEST(Reassignment, ReassignedEventsAreServedAfterStopAndHoldTheDrain) {
  EventManager evm(2, 0);
  EXPECT_EQ(evm.assign(0), 0u);
  EXPECT_EQ(evm.assign(1), 1u);
  evm.stop_assigning();
  evm.completed(0, 0);
  EXPECT_FALSE(evm.drained());  // event 1 is still out
  evm.exclude(1, {1});
  EXPECT_FALSE(evm.drained());   // and still to be built
  EXPECT_EQ(evm.assign(0), 1u);  // handed out although assignment stopped
  EXPECT_FALSE(evm.assign(0).has_value());
  EXPECT_FALSE(evm.drained());
  evm.completed(0, 1);
  EXPECT_TRUE(evm.drained());
  EXPECT_EQ(evm.completed_total(), 2u);
}

TEST(Reassignment, EventsLimitCountsAReassignedEventOnce) {
  EventManager evm(2, 2);
  EXPECT_EQ(evm.assign(0), 0u);
  EXPECT_EQ(evm.assign(1), 1u);
  EXPECT_FALSE(evm.assign(0).has_value());  // the limit: stopping
  evm.exclude(1, {1});
  EXPECT_EQ(evm.assign(0), 1u);
  evm.completed(0, 0);
  evm.completed(0, 1);
  EXPECT_TRUE(evm.drained());
  EXPECT_EQ(evm.assigned(), 2u);
}

TEST(Reassignment, RefusesAMismatchedHandBackAndASecondExclusion) {
  EventManager evm(2, 0);
  EXPECT_EQ(evm.assign(0), 0u);
  EXPECT_THROW(evm.exclude(0, {}), std::logic_error);  // it holds one event
  evm.exclude(0, {0});
  EXPECT_THROW(evm.exclude(0, {}), std::logic_error);
  // A completion from an excluded BU is a logic error: the EVM discards those.
  EXPECT_THROW(evm.completed(0, 0), std::logic_error);
}

}  // namespace
}  // namespace evb
