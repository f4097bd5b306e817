// Command batches on the wire (core/command_batch.hpp): what is encoded is
// read back the same, and a hostile batch (wrong count, short message, a
// list that is not of one batchable kind, stray header fields) is refused
// with a reason before any of its commands is used.
#include "core/command_batch.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace evb {
namespace {

std::vector<Command> credits(int n) {
  std::vector<Command> v;
  for (int i = 0; i < n; ++i)
    v.push_back(Command{.type = CommandType::credit,
                        .event_id = 100u + static_cast<uint64_t>(i),
                        .slot = static_cast<uint32_t>(i),
                        .bu = 3,
                        .count = 1,
                        .bytes = 4096u * static_cast<uint64_t>(i + 1),
                        .value = 1});
  return v;
}

// A message of `size` bytes (at least the batch) holding the batch of `cmds`.
std::vector<unsigned char> message(const std::vector<Command>& cmds, size_t size = 0) {
  std::vector<unsigned char> m(std::max(size, batch_message_size(static_cast<int>(cmds.size()))));
  EXPECT_EQ(encode_batch(cmds, m.data()), batch_message_size(static_cast<int>(cmds.size())));
  return m;
}

Command head_of(const std::vector<unsigned char>& m) {
  Command h;
  EXPECT_TRUE(decode_command(m.data(), m.size(), &h));
  return h;
}

std::string decode(const std::vector<unsigned char>& m, int max_events,
                   std::vector<Command>* out = nullptr) {
  std::vector<Command> scratch;
  std::vector<Command>& o = out ? *out : scratch;
  return decode_batch(head_of(m), m.data(), m.size(), max_events, o);
}

TEST(CommandBatch, RoundTripKeepsEveryFieldAndTheOrder) {
  const auto sent = credits(16);
  const auto m = message(sent, 2048);  // padded like a command_size message
  const Command h = head_of(m);
  EXPECT_EQ(h.type, CommandType::batch);
  EXPECT_EQ(h.count, 16u);
  std::vector<Command> got;
  EXPECT_EQ(decode(m, 16, &got), "");
  ASSERT_EQ(got.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i)
    EXPECT_EQ(std::memcmp(&got[i], &sent[i], sizeof(Command)), 0) << "command " << i;
}

TEST(CommandBatch, SizeIsTheHeaderAndTheList) {
  EXPECT_EQ(batch_message_size(1), 2 * sizeof(Command));
  EXPECT_EQ(batch_message_size(kMaxBatchEvents), (kMaxBatchEvents + 1) * sizeof(Command));
}

TEST(CommandBatch, OnlyCreditsAssignmentsAndRequestsAreBatchable) {
  EXPECT_TRUE(batchable(CommandType::credit));
  EXPECT_TRUE(batchable(CommandType::assign));
  EXPECT_TRUE(batchable(CommandType::pull_request));
  EXPECT_TRUE(batchable(CommandType::push_assign));
  for (CommandType t : {CommandType::stop, CommandType::exclude, CommandType::release,
                        CommandType::desync, CommandType::mask, CommandType::heartbeat,
                        CommandType::control, CommandType::stats, CommandType::batch})
    EXPECT_FALSE(batchable(t)) << static_cast<int>(t);
}

TEST(CommandBatch, CountBeyondTheRunsLimitIsRefused) {
  const auto m = message(credits(8));
  EXPECT_EQ(decode(m, 8), "");
  EXPECT_NE(decode(m, 7).find("more than a batch may hold"), std::string::npos);
  // A run without batches (batch.events 1) takes none.
  EXPECT_NE(decode(message(credits(2)), 1), "");
}

TEST(CommandBatch, EmptyListIsRefused) {
  auto m = message(credits(2));
  Command h = head_of(m);
  h.count = 0;
  std::memcpy(m.data(), &h, sizeof h);
  EXPECT_NE(decode(m, 16).find("empty"), std::string::npos);
}

TEST(CommandBatch, CountLongerThanTheMessageIsRefused) {
  const auto m = message(credits(4));
  // The same bytes announcing more commands than they hold.
  auto longer = m;
  Command h = head_of(longer);
  h.count = 5;
  std::memcpy(longer.data(), &h, sizeof h);
  const std::string why = decode(longer, 16);
  EXPECT_NE(why.find("5 commands"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(m.size()) + " B"), std::string::npos) << why;
  // A message cut short.
  std::vector<Command> out;
  EXPECT_NE(decode_batch(head_of(m), m.data(), m.size() - 1, 16, out), "");
  EXPECT_TRUE(out.size() < 4);
}

TEST(CommandBatch, StrayHeaderFieldsAreRefused) {
  for (int field = 0; field < 5; ++field) {
    auto m = message(credits(2));
    Command h = head_of(m);
    if (field == 0) h.event_id = 1;
    if (field == 1) h.slot = 1;
    if (field == 2) h.bu = 1;
    if (field == 3) h.value = 1;
    if (field == 4) h.pad[1] = 1;
    std::memcpy(m.data(), &h, sizeof h);
    EXPECT_NE(decode(m, 16).find("stray"), std::string::npos) << "field " << field;
  }
}

TEST(CommandBatch, ListEntriesMustBeWholeCommandsOfOneBatchableKind) {
  auto bad_magic = credits(3);
  bad_magic[1].magic = 0;
  EXPECT_NE(decode(message(bad_magic), 16).find("command 2 of its list lacks the magic"),
            std::string::npos);
  auto stop = credits(3);
  stop[2].type = CommandType::stop;
  EXPECT_NE(decode(message(stop), 16).find("does not travel in batches"), std::string::npos);
  auto nested = credits(2);
  nested[0].type = CommandType::batch;
  EXPECT_NE(decode(message(nested), 16).find("does not travel in batches"), std::string::npos);
  auto mixed = credits(2);
  mixed[1].type = CommandType::assign;
  EXPECT_NE(decode(message(mixed), 16).find("another type"), std::string::npos);
}

TEST(CommandBatch, AnythingButABatchHeaderIsNotABatch) {
  auto m = message(credits(2));
  Command h = head_of(m);
  h.type = CommandType::credit;
  std::memcpy(m.data(), &h, sizeof h);
  EXPECT_NE(decode(m, 16), "");
}

}  // namespace
}  // namespace evb
