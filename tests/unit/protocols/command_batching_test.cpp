// Command batching in the Engine (batch.events > 1): commands given to
// batch_command travel several to a message per peer and channel, a full
// list leaves at once, a flush or any other command to the same peer and
// channel sends what is held (order kept), and batch.events 1 sends every
// command alone as before. The CommandBatcher's lists fall due after
// batch.max_wait. A received batch reaches the agent command by command,
// from its peer; a hostile one ends the run naming the peer before any of
// its commands is used. Over a driver that only records posts.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
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

// Takes what reaches Channel::to_evm; done after `expected` commands.
class Listener : public Agent {
 public:
  explicit Listener(size_t expected) : expected_(expected) {}
  void start(int64_t) override {}
  void on_command(PeerId from, const Command& cmd) override { got.emplace_back(from, cmd); }
  void on_completion(const Completion&) override {}
  bool done() const override { return got.size() >= expected_; }
  std::string waiting_for() const override { return "commands"; }
  std::vector<std::pair<PeerId, Command>> got;

 private:
  size_t expected_;
};

// Rank 0 receives `message` from rank 1 on Channel::to_evm (batch.events 4)
// and runs its loop; returns the engine's error ("" when none).
std::string receive(const std::vector<unsigned char>& message, Listener& agent) {
  Config c = batching(4);
  c.peer_timeout_s = 0;
  RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1"});
  engine.listen(Channel::to_evm, engine.add_agent(&agent), 1);
  const RecordingDriver::Recv r = driver.recvs.at(0);
  EXPECT_LE(message.size(), r.size);
  std::memcpy(r.buffer, message.data(), message.size());
  driver.pending.push_back(
      Completion{r.cookie, OpType::recv, OpStatus::ok, 1, r.tag, message.size(), 0});
  try {
    engine.run();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

std::vector<Command> credits(int n) {
  std::vector<Command> v;
  for (int i = 0; i < n; ++i)
    v.push_back(Command{.type = CommandType::credit, .slot = static_cast<uint32_t>(i), .bu = 1});
  return v;
}

std::vector<unsigned char> batch_of(const std::vector<Command>& cmds) {
  std::vector<unsigned char> m(batch_message_size(4));
  encode_batch(cmds, m.data());
  return m;
}

TEST(CommandBatching, AReceivedBatchReachesTheAgentCommandByCommand) {
  Listener agent(3);
  EXPECT_EQ(receive(batch_of(credits(3)), agent), "");
  ASSERT_EQ(agent.got.size(), 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(agent.got[i].first, 1);  // the peer the message came from
    EXPECT_EQ(agent.got[i].second.type, CommandType::credit);
    EXPECT_EQ(agent.got[i].second.slot, i);
  }
}

TEST(CommandBatching, AHostileBatchIsRefusedNamingThePeerBeforeAnyCommandIsUsed) {
  auto too_many = batch_of(credits(4));
  Command head;
  std::memcpy(&head, too_many.data(), sizeof head);
  head.count = 5;  // over batch.events, and past the message
  std::memcpy(too_many.data(), &head, sizeof head);
  auto mixed = credits(3);
  mixed[2].type = CommandType::stop;
  for (const auto& m : {too_many, batch_of(mixed)}) {
    Listener agent(1);
    const std::string e = receive(m, agent);
    EXPECT_NE(e.find("a command batch from rank 1 refused"), std::string::npos) << e;
    EXPECT_TRUE(agent.got.empty());
  }
}

}  // namespace
}  // namespace evb
