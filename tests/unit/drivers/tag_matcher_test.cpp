// Receive matching in isolation: ordering, any-peer, unexpected, truncation.
#include "drivers/common/tag_matcher.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace evb {
namespace {

PostedRecv recv_of(PeerId peer, Tag tag, std::vector<std::byte>& buf, uint64_t cookie) {
  PostedRecv r;
  r.peer = peer;
  r.tag = tag;
  r.buffer = buf.data();
  r.size = buf.size();
  r.cookie = cookie;
  return r;
}

// Feeds one whole message through the matcher as a connection would.
void arrive(TagMatcher& m, PeerId peer, Tag tag, const std::string& text) {
  RecvTarget t = m.begin_message(peer, tag, text.size());
  std::memcpy(t.data, text.data(), std::min(text.size(), t.capacity));
  m.end_message(peer, tag, t, text.size(), OpStatus::ok);
}

TEST(TcpMatching, OldestPostedReceiveWinsAcrossAnyAndSpecific) {
  RingQueue<Completion> out;
  TagMatcher m(out);
  std::vector<std::byte> a(16), b(16), c(16);
  m.add_posted(recv_of(kAnyPeer, 1, a, 10));
  m.add_posted(recv_of(2, 1, b, 11));
  m.add_posted(recv_of(2, 1, c, 12));
  arrive(m, 2, 1, "first");
  arrive(m, 2, 1, "second");
  arrive(m, 2, 1, "third");
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].cookie, 10u);
  EXPECT_EQ(out[1].cookie, 11u);
  EXPECT_EQ(out[2].cookie, 12u);
  EXPECT_EQ(out[0].peer, 2);
  EXPECT_EQ(std::memcmp(a.data(), "first", 5), 0);
  EXPECT_EQ(std::memcmp(c.data(), "third", 5), 0);
  EXPECT_EQ(m.posted_count(), 0u);
}

// Unexpected messages are bounded in count and bytes; a posted receive is
// never refused, and delivering one frees its room.
TEST(TcpMatching, UnexpectedMessagesAreBounded) {
  RingQueue<Completion> out;
  TagMatcher m(out, UnexpectedLimits{10, 2});
  arrive(m, 1, 1, "abcd");
  arrive(m, 1, 1, "efgh");
  EXPECT_TRUE(m.begin_message(1, 1, 1).refused);  // a third message
  EXPECT_EQ(m.unexpected_bytes(), 8u);
  std::vector<std::byte> a(4);
  ASSERT_TRUE(m.match_unexpected(recv_of(1, 1, a, 1)));
  EXPECT_EQ(m.unexpected_bytes(), 4u);
  EXPECT_TRUE(m.begin_message(1, 1, 7).refused);      // 4 + 7 > 10 bytes
  EXPECT_TRUE(m.begin_message(1, 1, ~0ull).refused);  // no wrap-around
  arrive(m, 1, 1, "ijklmn");                          // 4 + 6 fits exactly
  EXPECT_EQ(m.unexpected_bytes(), 10u);
  std::vector<std::byte> big(100);
  m.add_posted(recv_of(1, 2, big, 2));
  EXPECT_FALSE(m.begin_message(1, 2, 100).refused);  // posted: no limit applies
  EXPECT_EQ(m.unexpected_count(), 2u);
}

TEST(TcpMatching, TagsMatchExactly) {
  RingQueue<Completion> out;
  TagMatcher m(out);
  std::vector<std::byte> a(16);
  m.add_posted(recv_of(1, 7, a, 1));
  arrive(m, 1, 8, "other tag");
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(m.unexpected_count(), 1u);
  arrive(m, 1, 7, "mine");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tag, 7u);
  EXPECT_EQ(out[0].bytes, 4u);
}

TEST(TcpMatching, UnexpectedMessagesMatchInArrivalOrder) {
  RingQueue<Completion> out;
  TagMatcher m(out);
  arrive(m, 3, 5, "from three");
  arrive(m, 1, 5, "from one");
  std::vector<std::byte> a(32), b(32);
  EXPECT_TRUE(m.match_unexpected(recv_of(1, 5, a, 1)));  // specific peer skips rank 3's
  EXPECT_TRUE(m.match_unexpected(recv_of(kAnyPeer, 5, b, 2)));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].peer, 1);
  EXPECT_EQ(out[1].peer, 3);
  EXPECT_EQ(std::memcmp(b.data(), "from three", 10), 0);
  std::vector<std::byte> c(8);
  EXPECT_FALSE(m.match_unexpected(recv_of(kAnyPeer, 5, c, 3)));
}

TEST(TcpMatching, ReceivePostedWhileUnexpectedMessageStillArrives) {
  RingQueue<Completion> out;
  TagMatcher m(out);
  RecvTarget t = m.begin_message(0, 9, 6);
  std::memcpy(t.data, "abc", 3);
  std::vector<std::byte> buf(6);
  EXPECT_TRUE(m.match_unexpected(recv_of(0, 9, buf, 77)));
  EXPECT_TRUE(out.empty());
  std::memcpy(t.data + 3, "def", 3);
  m.end_message(0, 9, t, 6, OpStatus::ok);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].cookie, 77u);
  EXPECT_EQ(std::memcmp(buf.data(), "abcdef", 6), 0);
}

TEST(TcpMatching, TruncationReportsFullLength) {
  RingQueue<Completion> out;
  TagMatcher m(out);
  std::vector<std::byte> small(4);
  m.add_posted(recv_of(0, 1, small, 1));
  arrive(m, 0, 1, "0123456789");
  arrive(m, 0, 1, "unexpected and long");
  std::vector<std::byte> small2(3);
  EXPECT_TRUE(m.match_unexpected(recv_of(0, 1, small2, 2)));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].status, OpStatus::truncated);
  EXPECT_EQ(out[0].bytes, 10u);
  EXPECT_EQ(std::memcmp(small.data(), "0123", 4), 0);
  EXPECT_EQ(out[1].status, OpStatus::truncated);
  EXPECT_EQ(std::memcmp(small2.data(), "une", 3), 0);
}

TEST(TcpMatching, FailPeerAndAny) {
  RingQueue<Completion> out;
  TagMatcher m(out);
  std::vector<std::byte> a(4);
  m.add_posted(recv_of(1, 1, a, 1));
  m.add_posted(recv_of(2, 1, a, 2));
  m.add_posted(recv_of(kAnyPeer, 1, a, 3));
  m.fail_peer(1, OpStatus::peer_lost);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].cookie, 1u);
  EXPECT_EQ(out[0].status, OpStatus::peer_lost);
  m.fail_any(OpStatus::peer_closed);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].cookie, 3u);
  EXPECT_EQ(out[1].status, OpStatus::peer_closed);
  EXPECT_EQ(m.posted_count(), 1u);
}

}  // namespace
}  // namespace evb
