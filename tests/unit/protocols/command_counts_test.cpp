// CommandCounts (results.cost): a command counts for the role that sends it
// and the role that receives it, by channel and kind; a batch is one message
// and its entries are commands; a loopback command is a command and no
// message; channels that are not event building are not counted; the flat
// form RankStats carries reads back the same and sums rank by rank.
#include "protocols/common/command_counts.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/command_batch.hpp"

namespace evb {
namespace {

TEST(CommandCounts, OneCommandCountsForItsSenderAndReceiver) {
  CommandCounts c;
  const Command assign{.type = CommandType::assign};
  c.sent(Channel::to_bu, &assign, sizeof assign, true);
  c.received(Channel::to_bu, 1, true);
  EXPECT_EQ(c.of(CostRole::evm).messages_sent, 1u);
  EXPECT_EQ(c.of(CostRole::evm).commands_sent, 1u);
  EXPECT_EQ(c.of(CostRole::bu).messages_received, 1u);
  EXPECT_EQ(c.of(CostRole::bu).commands_received, 1u);
  EXPECT_EQ(c.of(CostRole::evm).commands_received, 0u);
  EXPECT_EQ(c.of(CostRole::ru).commands_received, 0u);
}

TEST(CommandCounts, ToRuBelongsToTheBuOrTheEvmByKind) {
  CommandCounts c;
  const Command request{.type = CommandType::pull_request};
  const Command push{.type = CommandType::push_assign};
  c.sent(Channel::to_ru, &request, sizeof request, true);
  c.sent(Channel::to_ru, &push, sizeof push, true);
  c.sent(Channel::to_ru, &push, sizeof push, true);
  EXPECT_EQ(c.of(CostRole::bu).commands_sent, 1u);
  EXPECT_EQ(c.of(CostRole::evm).commands_sent, 2u);
}

TEST(CommandCounts, ABatchIsOneMessageOfManyCommands) {
  const std::vector<Command> credits(5, Command{.type = CommandType::credit});
  std::vector<unsigned char> bytes(batch_message_size(static_cast<int>(credits.size())));
  encode_batch(credits, bytes.data());
  CommandCounts c;
  c.sent(Channel::to_evm, bytes.data(), bytes.size(), true);
  c.received(Channel::to_evm, credits.size(), true);
  EXPECT_EQ(c.of(CostRole::bu).messages_sent, 1u);
  EXPECT_EQ(c.of(CostRole::bu).commands_sent, credits.size());
  EXPECT_EQ(c.of(CostRole::evm).messages_received, 1u);
  EXPECT_EQ(c.of(CostRole::evm).commands_received, credits.size());
}

TEST(CommandCounts, LoopbackIsACommandButNoMessage) {
  CommandCounts c;
  const Command credit{.type = CommandType::credit};
  c.sent(Channel::to_evm, &credit, sizeof credit, false);
  c.received(Channel::to_evm, 1, false);
  EXPECT_EQ(c.of(CostRole::bu).commands_sent, 1u);
  EXPECT_EQ(c.of(CostRole::bu).messages_sent, 0u);
  EXPECT_EQ(c.of(CostRole::evm).commands_received, 1u);
  EXPECT_EQ(c.of(CostRole::evm).messages_received, 0u);
}

TEST(CommandCounts, OtherChannelsAreNotCounted) {
  CommandCounts c;
  const Command stats{.type = CommandType::stats};
  c.sent(Channel::monitor, &stats, sizeof stats, true);
  c.received(Channel::control, 1, true);
  c.received(Channel::bench, 1, true);
  for (uint64_t n : c.flat()) EXPECT_EQ(n, 0u);
}

TEST(CommandCounts, FlatFormReadsBackAndSums) {
  CommandCounts a;
  const Command assign{.type = CommandType::assign};
  a.sent(Channel::to_bu, &assign, sizeof assign, true);
  a.received(Channel::to_ru, 3, true);
  const CommandCounts back = CommandCounts::from_flat(a.flat());
  EXPECT_EQ(back.flat(), a.flat());
  CommandCounts sum;
  sum += back;
  sum += a;
  EXPECT_EQ(sum.of(CostRole::evm).commands_sent, 2u);
  EXPECT_EQ(sum.of(CostRole::ru).commands_received, 6u);
  // A list of another length (an older rank's record) reads as nothing.
  for (uint64_t n : CommandCounts::from_flat({1, 2, 3}).flat()) EXPECT_EQ(n, 0u);
}

}  // namespace
}  // namespace evb
