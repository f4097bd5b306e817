// Connections: every rank pair gets lanes of its own on its host pair, and a
// message's stream follows its channel (commands apart from data).
#include "sim/exec/connections.hpp"

#include <gtest/gtest.h>

#include <set>

#include "core/error.hpp"
#include "core/messages.hpp"

namespace evb::simexec {
namespace {

Message message(int src, int dst, uint32_t tag, Message::Kind kind = Message::Kind::send) {
  Message m;
  m.src = src;
  m.dst = dst;
  m.tag = tag;
  m.kind = kind;
  return m;
}

TEST(SimConnections, OneRankPerHostHasOneLanePerStream) {
  const Connections c({0, 1, 2});
  EXPECT_EQ(c.lanes(), Connections::kStreams);
  EXPECT_EQ(c.lane(message(0, 1, command_tag(Channel::to_evm))), 0);
  EXPECT_EQ(c.lane(message(2, 1, data_tag(5))), 1);
}

TEST(SimConnections, RanksSharingHostsGetDistinctLanes) {
  // Ranks 0 and 3 share host 0, ranks 1 and 2 host 1.
  const Connections c({0, 1, 1, 0});
  EXPECT_EQ(c.lanes(), 4 * Connections::kStreams);
  std::set<int> lanes;
  for (int src : {0, 3})
    for (int dst : {1, 2})
      for (uint32_t tag : {command_tag(Channel::to_ru), data_tag(1)}) {
        const int l = c.lane(message(src, dst, tag));
        EXPECT_GE(l, 0);
        EXPECT_LT(l, c.lanes());
        lanes.insert(l);
      }
  EXPECT_EQ(lanes.size(), 8u);  // 4 rank pairs x 2 streams, all apart
}

TEST(SimConnections, DataWritesAndBenchGoTogetherCommandsApart) {
  EXPECT_EQ(Connections::stream(message(0, 1, data_tag(0))), 1);
  EXPECT_EQ(Connections::stream(message(0, 1, data_tag(77))), 1);
  EXPECT_EQ(Connections::stream(message(0, 1, 0, Message::Kind::write)), 1);
  EXPECT_EQ(Connections::stream(message(0, 1, command_tag(Channel::bench))), 1);
  for (Channel ch :
       {Channel::to_evm, Channel::to_ru, Channel::to_bu, Channel::monitor, Channel::control})
    EXPECT_EQ(Connections::stream(message(0, 1, command_tag(ch))), 0) << static_cast<int>(ch);
}

TEST(SimConnections, ARankWithoutAHostIsRefused) {
  EXPECT_THROW(Connections({0, -1}), Error);
}

}  // namespace
}  // namespace evb::simexec
