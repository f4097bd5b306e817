// Command batching in the Engine (batch.events > 1): commands given to
// batch_command travel several to a message per peer and channel, a full
// list leaves at once, a flush or any other command to the same peer and
// channel sends what is held (order kept), and batch.events 1 sends every
// command alone as before. The CommandBatcher's lists fall due after
// batch.max_wait. Over a driver that only records sends.
#include <gtest/gtest.h>

#include <vector>

#include "../support/recording_driver.hpp"
#include "core/command_batch.hpp"
#include "protocols/common/command_batcher.hpp"
#include "protocols/common/engine.hpp"

namespace evb {
namespace {

using test_support::RecordingDriver;

Config batching(int events) {
  Config c;
  c.batch.events = events;
  if (events > 1) c.command_size = batch_message_size(events);
  return c;
}

Command request(uint64_t event) {
  return Command{.type = CommandType::pull_request, .event_id = event, .slot = 1, .bu = 0};
}

TEST(CommandBatching, AFullListLeavesAsOneBatch) {
  const Config c = batching(4);
  RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1", "rank 2"});
  for (uint64_t e = 0; e < 3; ++e) engine.batch_command(1, Channel::to_ru, request(e));
  EXPECT_TRUE(driver.sends.empty());  // held back
  engine.batch_command(1, Channel::to_ru, request(3));
  ASSERT_EQ(driver.sends, std::vector<PeerId>{1});
  EXPECT_EQ(driver.commands[0].type, CommandType::batch);
  EXPECT_EQ(driver.commands[0].count, 4u);
}

TEST(CommandBatching, ListsArePerPeerAndChannelAndFlushSendsThem) {
  const Config c = batching(8);
  RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1", "rank 2"});
  engine.batch_command(1, Channel::to_ru, request(0));
  engine.batch_command(2, Channel::to_ru, request(1));
  engine.batch_command(2, Channel::to_ru, request(2));
  engine.batch_command(2, Channel::to_evm, Command{.type = CommandType::credit});
  engine.flush_commands(Channel::to_ru);
  ASSERT_EQ(driver.sends.size(), 2u);
  // One command alone travels plain; two as a batch.
  for (size_t i = 0; i < 2; ++i) {
    if (driver.sends[i] == 1) {
      EXPECT_EQ(driver.commands[i].type, CommandType::pull_request);
    } else {
      EXPECT_EQ(driver.commands[i].type, CommandType::batch);
      EXPECT_EQ(driver.commands[i].count, 2u);
    }
  }
  // The credit to rank 2 (another channel) is still held.
  engine.flush_commands(Channel::to_evm);
  ASSERT_EQ(driver.sends.size(), 3u);
  EXPECT_EQ(driver.commands[2].type, CommandType::credit);
}

TEST(CommandBatching, AnotherCommandOnTheChannelGoesAfterTheHeldOnes) {
  const Config c = batching(8);
  RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1"});
  engine.batch_command(1, Channel::to_bu, Command{.type = CommandType::assign, .event_id = 7});
  engine.batch_command(1, Channel::to_bu, Command{.type = CommandType::assign, .event_id = 8});
  engine.send_command(1, Channel::to_bu, Command{.type = CommandType::stop});
  ASSERT_EQ(driver.sends.size(), 2u);
  EXPECT_EQ(driver.commands[0].type, CommandType::batch);
  EXPECT_EQ(driver.commands[1].type, CommandType::stop);
}

TEST(CommandBatching, OneEventPerCommandSendsAtOnce) {
  const Config c = batching(1);
  RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1"});
  for (uint64_t e = 0; e < 3; ++e) engine.batch_command(1, Channel::to_ru, request(e));
  ASSERT_EQ(driver.sends.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(driver.commands[i].type, CommandType::pull_request);
    EXPECT_EQ(driver.commands[i].event_id, i);
  }
}

TEST(CommandBatching, ABatchLargerThanCommandSizeIsAnError) {
  Config c = batching(4);
  c.command_size = 64;  // not what the key rules allow
  RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1"});
  for (uint64_t e = 0; e < 3; ++e) engine.batch_command(1, Channel::to_ru, request(e));
  EXPECT_THROW(engine.batch_command(1, Channel::to_ru, request(3)), std::exception);
  EXPECT_TRUE(driver.sends.empty());
}

TEST(CommandBatcher, ListsFallDueAfterMaxWait) {
  CommandBatcher b(4, 1000, 3);
  std::vector<CommandBatcher::Key> due;
  EXPECT_EQ(b.next_due_ns(), -1);
  EXPECT_FALSE(b.add(1, Channel::to_evm, Command{}, 5000));
  EXPECT_FALSE(b.add(2, Channel::to_evm, Command{}, 5500));
  EXPECT_FALSE(b.add(1, Channel::to_evm, Command{}, 5900));  // the list's age is its first's
  EXPECT_EQ(b.next_due_ns(), 6000);
  b.lists_due(5999, due);
  EXPECT_TRUE(due.empty());
  b.lists_due(6000, due);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].peer, 1);
  std::vector<Command> out;
  b.take(1, Channel::to_evm, out);
  EXPECT_EQ(out.size(), 2u);
  EXPECT_FALSE(b.holds(1, Channel::to_evm));
  EXPECT_TRUE(b.holds(2, Channel::to_evm));
  EXPECT_EQ(b.next_due_ns(), 6500);
  b.take(2, Channel::to_evm, out);
  EXPECT_TRUE(b.empty());
}

TEST(CommandBatcher, OneEventPerCommandHoldsNothing) {
  const CommandBatcher b(1, 1000, 3);
  EXPECT_FALSE(b.active());
  EXPECT_FALSE(b.holds(1, Channel::to_evm));
}

}  // namespace
}  // namespace evb
