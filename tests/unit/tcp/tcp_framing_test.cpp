// The framing state machine in isolation, on a socketpair, with reads and
// writes cut to one (or a few) bytes so every byte boundary is crossed.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "drivers/tcp/tcp_connection.hpp"
#include "tcp_test_util.hpp"

namespace evb::tcp {
namespace {

// Gives every message its own buffer of `capacity` (0: exact length).
class RecordingSink : public FrameSink {
 public:
  struct Message {
    Tag tag;
    uint64_t length;
    std::vector<std::byte> data;
    OpStatus status;
    bool done = false;
  };
  size_t capacity = 0;
  std::vector<Message> messages;
  std::vector<std::pair<uint64_t, OpStatus>> sends;

  RecvTarget begin_message(PeerId, Tag tag, uint64_t length) override {
    messages.push_back({tag, length, {}, OpStatus::ok});
    auto& m = messages.back();
    m.data.resize(capacity ? capacity : length);
    RecvTarget t;
    t.data = m.data.data();
    t.capacity = m.data.size();
    t.cookie = messages.size() - 1;
    return t;
  }
  void end_message(PeerId, Tag, const RecvTarget& t, uint64_t, OpStatus status) override {
    messages.at(t.cookie).status = status;
    messages.at(t.cookie).done = true;
  }
  void send_done(PeerId, Tag, uint64_t cookie, size_t, OpStatus status) override {
    sends.emplace_back(cookie, status);
  }
};

struct Pair {
  Fd a, b;
  Pair() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
    a = Fd(sv[0]);
    b = Fd(sv[1]);
  }
};

TEST(TcpFraming, OneByteWritesAndReadsDeliverEveryMessageIntact) {
  Pair p;
  RecordingSink tx_sink, rx_sink;
  ConnectionLimits one;
  one.max_io = 1;
  Connection tx(1, std::move(p.a), tx_sink, one);
  Connection rx(0, std::move(p.b), rx_sink, one);

  std::vector<std::vector<std::byte>> payloads;
  for (uint32_t i = 0; i < 12; ++i) payloads.push_back(test::pattern(i * 37 % 300, i));
  for (uint32_t i = 0; i < payloads.size(); ++i) {
    auto& pl = payloads[i];
    size_t half = pl.size() / 2;
    Segment segs[3] = {{pl.data(), half}, {nullptr, 0}, {pl.data() + half, pl.size() - half}};
    tx.queue_send(100 + i, segs, i);
  }
  for (int round = 0; round < 100000 && rx_sink.messages.size() < payloads.size(); ++round) {
    ASSERT_EQ(tx.flush(), IoResult::ok);
    ASSERT_EQ(rx.on_readable(), IoResult::ok);
  }
  while (!rx_sink.messages.empty() && !rx_sink.messages.back().done) {
    ASSERT_EQ(rx.on_readable(), IoResult::ok);
  }
  ASSERT_EQ(rx_sink.messages.size(), payloads.size());
  ASSERT_EQ(tx_sink.sends.size(), payloads.size());
  for (size_t i = 0; i < payloads.size(); ++i) {
    EXPECT_EQ(tx_sink.sends[i].first, i);
    const auto& m = rx_sink.messages[i];
    EXPECT_TRUE(m.done);
    EXPECT_EQ(m.tag, 100 + i);
    EXPECT_EQ(m.status, OpStatus::ok);
    EXPECT_EQ(m.data, payloads[i]) << "message " << i;
  }
}

TEST(TcpFraming, HandFedBytesCompleteOnlyAtTheLastByte) {
  Pair p;
  RecordingSink sink;
  Connection rx(0, std::move(p.b), sink);
  std::vector<std::byte> wire;
  auto frame = [&](Tag tag, const std::string& text) {
    FrameHeader h;
    h.tag = tag;
    h.length = text.size();
    auto* hb = reinterpret_cast<const std::byte*>(&h);
    wire.insert(wire.end(), hb, hb + sizeof h);
    for (char c : text) wire.push_back(static_cast<std::byte>(c));
  };
  frame(1, "hello");
  frame(2, "");
  frame(3, "world!");
  size_t ends[] = {24 + 5, 2 * 24 + 5, 3 * 24 + 11};
  size_t next = 0;
  for (size_t i = 0; i < wire.size(); ++i) {
    ASSERT_EQ(::write(p.a.get(), &wire[i], 1), 1);
    ASSERT_EQ(rx.on_readable(), IoResult::ok);
    size_t done = 0;
    for (auto& m : sink.messages) done += m.done ? 1 : 0;
    if (next < 3 && i + 1 == ends[next]) ++next;
    EXPECT_EQ(done, next) << "after byte " << i;
  }
  ASSERT_EQ(sink.messages.size(), 3u);
  EXPECT_EQ(std::memcmp(sink.messages[2].data.data(), "world!", 6), 0);
}

TEST(TcpFraming, TruncatedPayloadIsDrainedAndStreamStaysInSync) {
  Pair p;
  RecordingSink tx_sink, rx_sink;
  rx_sink.capacity = 10;
  ConnectionLimits odd;
  odd.max_io = 7;
  odd.staging = 64;  // large payloads take the direct-read path at odd offsets
  Connection tx(1, std::move(p.a), tx_sink, odd);
  Connection rx(0, std::move(p.b), rx_sink, odd);
  auto big = test::pattern(5000, 1);
  auto small = test::pattern(10, 2);
  Segment s1{big.data(), big.size()};
  Segment s2{small.data(), small.size()};
  tx.queue_send(1, {&s1, 1}, 1);
  tx.queue_send(2, {&s2, 1}, 2);
  for (int round = 0; round < 10000 && (rx_sink.messages.size() < 2 || !rx_sink.messages[1].done);
       ++round) {
    ASSERT_EQ(tx.flush(), IoResult::ok);
    ASSERT_EQ(rx.on_readable(), IoResult::ok);
  }
  ASSERT_EQ(rx_sink.messages.size(), 2u);
  EXPECT_EQ(rx_sink.messages[0].length, 5000u);
  EXPECT_TRUE(std::equal(big.begin(), big.begin() + 10, rx_sink.messages[0].data.begin()));
  EXPECT_EQ(rx_sink.messages[1].data, small);
}

TEST(TcpFraming, LargeDirectReadsAtOddBoundaries) {
  Pair p;
  RecordingSink tx_sink, rx_sink;
  ConnectionLimits odd;
  odd.max_io = 4093;
  odd.staging = 1024;
  Connection tx(1, std::move(p.a), tx_sink, odd);
  Connection rx(0, std::move(p.b), rx_sink, odd);
  auto big = test::pattern(300000, 3);
  Segment segs[4] = {{big.data(), 1},
                     {big.data() + 1, 99999},
                     {big.data() + 100000, 3},
                     {big.data() + 100003, 199997}};
  tx.queue_send(5, segs, 9);
  for (int round = 0; round < 100000 && (rx_sink.messages.empty() || !rx_sink.messages[0].done);
       ++round) {
    ASSERT_EQ(tx.flush(), IoResult::ok);
    ASSERT_EQ(rx.on_readable(), IoResult::ok);
  }
  ASSERT_EQ(rx_sink.messages.size(), 1u);
  EXPECT_EQ(rx_sink.messages[0].data, big);
}

TEST(TcpFraming, ByeGarbageAndEof) {
  {
    Pair p;
    RecordingSink s1, s2;
    Connection tx(1, std::move(p.a), s1);
    Connection rx(0, std::move(p.b), s2);
    tx.queue_bye();
    ASSERT_EQ(tx.flush(), IoResult::ok);
    EXPECT_TRUE(s1.sends.empty());  // BYE has no completion
    EXPECT_EQ(rx.on_readable(), IoResult::bye);
    EXPECT_TRUE(rx.bye_received());
  }
  {
    Pair p;
    RecordingSink s;
    Connection rx(0, std::move(p.b), s);
    const char junk[] = "GET / HTTP/1.0\r\n\r\nxxxxxxxxxxxxxxxx";
    ASSERT_GT(::write(p.a.get(), junk, sizeof junk), 0);
    EXPECT_EQ(rx.on_readable(), IoResult::protocol);
    EXPECT_TRUE(s.messages.empty());
  }
  {
    Pair p;
    RecordingSink s;
    Connection rx(0, std::move(p.b), s);
    FrameHeader h;
    h.length = 100;
    ASSERT_EQ(::write(p.a.get(), &h, sizeof h), static_cast<ssize_t>(sizeof h));
    ASSERT_EQ(::write(p.a.get(), "abc", 3), 3);
    EXPECT_EQ(rx.on_readable(), IoResult::ok);
    p.a.reset();
    EXPECT_EQ(rx.on_readable(), IoResult::eof);
    rx.fail(OpStatus::peer_lost);
    ASSERT_EQ(s.messages.size(), 1u);
    EXPECT_EQ(s.messages[0].status, OpStatus::peer_lost);
  }
}

TEST(TcpFraming, FailCompletesQueuedSends) {
  Pair p;
  RecordingSink s;
  Connection tx(1, std::move(p.a), s);
  auto data = test::pattern(100, 1);
  Segment seg{data.data(), data.size()};
  tx.queue_send(1, {&seg, 1}, 41);
  tx.queue_send(1, {&seg, 1}, 42);
  tx.fail(OpStatus::peer_lost);
  ASSERT_EQ(s.sends.size(), 2u);
  EXPECT_EQ(s.sends[1].first, 42u);
  EXPECT_EQ(s.sends[1].second, OpStatus::peer_lost);
  EXPECT_FALSE(tx.send_pending());
}

}  // namespace
}  // namespace evb::tcp
