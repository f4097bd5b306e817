// Tagged messages over every provider usable here: gathered sends, matching,
// any-peer sources, truncation, back-pressure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "lf_test_util.hpp"

namespace evb::libfabric {
namespace {

using test::Cluster;
using test::pattern;

class LfMessaging : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { LF_REQUIRE_PROVIDER(GetParam()); }
  LfOptions options() const { return test::options_for(GetParam()); }
};

TEST_P(LfMessaging, ReportsProviderAndCapabilities) {
  Cluster c(1, options());
  const std::string expected = canonical_provider(GetParam());
  EXPECT_EQ(c[0].name(), "libfabric/" + expected);
  const Capabilities caps = c[0].capabilities();
  EXPECT_GE(caps.max_segments, 1u);
  EXPECT_GT(caps.max_message, 0u);
  EXPECT_LE(caps.max_message, size_t{1} << 30);
  EXPECT_EQ(caps.tag_bits, 32);
  EXPECT_TRUE(caps.rdma_write);
  EXPECT_FALSE(caps.alltoall);
  EXPECT_FALSE(c[0].local_address().empty());
  const fi_info& fi = c[0].info();
  std::cout << "[ provider ] " << c[0].name() << " domain=" << fi.domain_attr->name
            << " fabric=" << fi.fabric_attr->name << " iov_limit=" << fi.tx_attr->iov_limit
            << " rma_iov_limit=" << fi.tx_attr->rma_iov_limit
            << " inject_size=" << fi.tx_attr->inject_size << " tx_size=" << fi.tx_attr->size
            << " rx_size=" << fi.rx_attr->size << " max_msg_size=" << fi.ep_attr->max_msg_size
            << " cq_data_size=" << fi.domain_attr->cq_data_size
            << " mr_mode=" << fi_tostr(&fi.domain_attr->mr_mode, FI_TYPE_MR_MODE)
            << " mr_key_size=" << fi.domain_attr->mr_key_size
            << " mode=" << fi_tostr(&fi.mode, FI_TYPE_MODE)
            << " tx_msg_order=" << fi_tostr(&fi.tx_attr->msg_order, FI_TYPE_MSG_ORDER)
            << " caps=" << fi_tostr(&fi.caps, FI_TYPE_CAPS)
            << " threading=" << fi_tostr(&fi.domain_attr->threading, FI_TYPE_THREADING)
            << " data_progress=" << fi_tostr(&fi.domain_attr->data_progress, FI_TYPE_PROGRESS)
            << " source=" << c[0].source_addresses() << " can_block=" << caps.can_block
            << " ordered_per_peer=" << caps.ordered_per_peer
            << " write_immediate=" << caps.write_immediate
            << " registration_required=" << caps.registration_required
            << " packed_key_size=" << caps.packed_key_size
            << " emulation_ordered=" << c[0].emulation_ordered()
            << " remote_cq_data_reports_length=" << c[0].immediate_reports_length()
            << " address_bytes=" << c[0].local_address().size() << "\n";
}

TEST_P(LfMessaging, GatheredSendArrivesIntact) {
  Cluster c(3, options());
  c.connect();
  const size_t nseg = std::min<size_t>(3, c[0].capabilities().max_segments);
  const std::vector<size_t> sizes = {1000, 70000, 5};
  std::vector<std::vector<std::byte>> parts;
  std::vector<Segment> segs;
  std::vector<std::byte> expected;
  for (size_t i = 0; i < nseg; ++i) {
    parts.push_back(pattern(sizes[i], static_cast<uint32_t>(i + 1)));
    expected.insert(expected.end(), parts.back().begin(), parts.back().end());
  }
  for (auto& p : parts) segs.push_back(Segment{p.data(), p.size(), nullptr});
  std::vector<std::byte> buf(expected.size() + 100, std::byte{0});
  c[2].post_recv(0, 42, buf.data(), buf.size(), nullptr, 7);
  c[0].post_send(2, 42, segs, 9);
  auto r = c.take(2, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].type, OpType::recv);
  EXPECT_EQ(r[0].status, OpStatus::ok) << c[2].last_error();
  EXPECT_EQ(r[0].cookie, 7u);
  EXPECT_EQ(r[0].peer, 0);
  EXPECT_EQ(r[0].tag, 42u);
  EXPECT_EQ(r[0].bytes, expected.size());
  EXPECT_EQ(std::memcmp(buf.data(), expected.data(), expected.size()), 0);
  auto s = c.take(0, 1);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].type, OpType::send);
  EXPECT_EQ(s[0].status, OpStatus::ok);
  EXPECT_EQ(s[0].cookie, 9u);
  EXPECT_EQ(s[0].bytes, expected.size());

  // A small gathered message (the inject path) and an empty one.
  auto a = pattern(10, 11), b = pattern(20, 12);
  Segment small[2] = {{a.data(), a.size(), nullptr}, {b.data(), b.size(), nullptr}};
  const size_t nsmall = std::min<size_t>(2, c[0].capabilities().max_segments);
  std::vector<std::byte> sbuf(64), ebuf(8);
  c[1].post_recv(0, 1, sbuf.data(), sbuf.size(), nullptr, 21);
  c[1].post_recv(0, 2, ebuf.data(), ebuf.size(), nullptr, 22);
  c[0].post_send(1, 1, {small, nsmall}, 31);
  c[0].post_send(1, 2, {}, 32);
  auto rs = c.take(1, 2);
  ASSERT_EQ(rs.size(), 2u);
  std::map<uint64_t, Completion> by_cookie;
  for (auto& x : rs) by_cookie[x.cookie] = x;
  ASSERT_EQ(by_cookie.count(21), 1u);
  ASSERT_EQ(by_cookie.count(22), 1u);
  EXPECT_EQ(by_cookie[21].status, OpStatus::ok);
  EXPECT_EQ(by_cookie[21].bytes, nsmall == 2 ? 30u : 10u);
  EXPECT_EQ(std::memcmp(sbuf.data(), a.data(), a.size()), 0);
  if (nsmall == 2) {
    EXPECT_EQ(std::memcmp(sbuf.data() + 10, b.data(), b.size()), 0);
  }
  EXPECT_EQ(by_cookie[22].status, OpStatus::ok);
  EXPECT_EQ(by_cookie[22].bytes, 0u);
  auto ss = c.take(0, 2);
  EXPECT_EQ(ss.size(), 2u);
  c.shutdown_all();
}

// Messages that arrive before their receive is posted (unexpected) are
// matched like the others: by any-peer receives from every rank, and by a
// receive for one peer only with that peer's message. shm 1.17 matched them
// with a stale ignore mask (lf_driver.hpp, exact_tags_): at 10+ ranks the
// hellos beyond the posted control receives never arrived.
TEST_P(LfMessaging, UnexpectedMessagesMatchTheirReceives) {
  constexpr int kRanks = 4;
  constexpr int kEach = 6;  // any-peer messages (tag 5) per sender
  Cluster c(kRanks, options());
  c.connect();
  std::vector<std::vector<std::byte>> data;
  for (int r = 1; r < kRanks; ++r)
    for (int i = 0; i <= kEach; ++i)
      data.push_back(pattern(64, static_cast<uint32_t>(r * 100 + i)));
  auto msg = [&](int r, int i) -> std::vector<std::byte>& {
    return data[(r - 1) * (kEach + 1) + i];
  };
  for (int r = 1; r < kRanks; ++r) {
    for (int i = 0; i <= kEach; ++i) {
      Segment s{msg(r, i).data(), msg(r, i).size(), nullptr};
      c[r].post_send(0, i == kEach ? 9 : 5, {&s, 1}, 100 + i);  // the last: tag 9
    }
  }
  for (int r = 1; r < kRanks; ++r) {
    for (const Completion& done : c.take(r, kEach + 1))
      ASSERT_EQ(done.status, OpStatus::ok) << c[r].last_error();
  }
  c.settle(0, std::chrono::milliseconds(100));  // rank 0 takes them in, unmatched
  ASSERT_EQ(c.queued(0), 0u);
  // Tag 9 from ranks 2 then 1: each receive gets its own peer's message.
  std::vector<std::byte> buf(128);
  for (int r : {2, 1}) {
    std::fill(buf.begin(), buf.end(), std::byte{0});
    c[0].post_recv(r, 9, buf.data(), buf.size(), nullptr, 900 + r);
    auto got = c.take(0, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].status, OpStatus::ok) << c[0].last_error();
    EXPECT_EQ(got[0].peer, r);
    EXPECT_TRUE(std::equal(msg(r, kEach).begin(), msg(r, kEach).end(), buf.begin()))
        << "a receive for rank " << r << " got another rank's message";
  }
  // Tag 5 from any peer: every message, each with its sender.
  std::vector<std::vector<std::byte>> in((kRanks - 1) * kEach, std::vector<std::byte>(128));
  for (size_t k = 0; k < in.size(); ++k)
    c[0].post_recv(kAnyPeer, 5, in[k].data(), in[k].size(), nullptr, k);
  std::map<int, int> per_peer;
  for (const Completion& got : c.take(0, in.size())) {
    ASSERT_EQ(got.status, OpStatus::ok) << c[0].last_error();
    ASSERT_TRUE(got.peer >= 1 && got.peer < kRanks) << "sender " << got.peer;
    const int i = per_peer[got.peer]++;  // ordered per peer
    ASSERT_LT(i, kEach);
    EXPECT_TRUE(
        std::equal(msg(got.peer, i).begin(), msg(got.peer, i).end(), in[got.cookie].begin()))
        << "message " << i << " of rank " << got.peer;
  }
  for (int r = 1; r < kRanks; ++r) EXPECT_EQ(per_peer[r], kEach) << "from rank " << r;
}

TEST_P(LfMessaging, AnyPeerReceiveReportsTheSender) {
  Cluster c(4, options());
  c.connect();
  std::vector<std::vector<std::byte>> bufs(3, std::vector<std::byte>(256));
  for (int i = 0; i < 3; ++i) c[0].post_recv(kAnyPeer, 5, bufs[i].data(), 256, nullptr, 100 + i);
  std::vector<std::vector<std::byte>> msgs;
  for (int r = 1; r < 4; ++r) msgs.push_back(pattern(100 + r, static_cast<uint32_t>(r)));
  for (int r = 1; r < 4; ++r) {
    Segment s{msgs[r - 1].data(), msgs[r - 1].size(), nullptr};
    c[r].post_send(0, 5, {&s, 1}, r);
  }
  auto got = c.take(0, 3);
  ASSERT_EQ(got.size(), 3u);
  std::set<PeerId> senders;
  for (const auto& g : got) {
    ASSERT_EQ(g.status, OpStatus::ok) << c[0].last_error();
    ASSERT_GE(g.peer, 1);
    ASSERT_LE(g.peer, 3);
    senders.insert(g.peer);
    EXPECT_EQ(g.tag, 5u);
    EXPECT_EQ(g.bytes, static_cast<size_t>(100 + g.peer)) << "from rank " << g.peer;
    const auto& buf = bufs[g.cookie - 100];
    EXPECT_EQ(std::memcmp(buf.data(), msgs[g.peer - 1].data(), g.bytes), 0) << g.peer;
  }
  EXPECT_EQ(senders.size(), 3u);
  for (int r = 1; r < 4; ++r) EXPECT_EQ(c.take(r, 1).size(), 1u);
}

TEST_P(LfMessaging, DirectedReceivesMatchPeerAndTag) {
  Cluster c(3, options());
  c.connect();
  std::vector<std::byte> from2(64), from1(64), other_tag(64);
  c[0].post_recv(2, 8, from2.data(), 64, nullptr, 1);
  c[0].post_recv(1, 8, from1.data(), 64, nullptr, 2);
  c[0].post_recv(1, 9, other_tag.data(), 64, nullptr, 3);
  auto m1 = pattern(40, 1), m2 = pattern(50, 2), m3 = pattern(30, 3);
  Segment s1{m1.data(), m1.size(), nullptr}, s3{m3.data(), m3.size(), nullptr};
  Segment s2{m2.data(), m2.size(), nullptr};
  c[1].post_send(0, 9, {&s3, 1}, 0);  // tag 9 first: must not take the tag-8 receive
  c[1].post_send(0, 8, {&s1, 1}, 0);
  auto first = c.take(0, 2);
  ASSERT_EQ(first.size(), 2u);
  std::map<uint64_t, Completion> by;
  for (auto& x : first) by[x.cookie] = x;
  ASSERT_TRUE(by.count(2) && by.count(3)) << "rank 2's receive completed without a message";
  EXPECT_EQ(by[2].bytes, 40u);
  EXPECT_EQ(by[2].peer, 1);
  EXPECT_EQ(std::memcmp(from1.data(), m1.data(), 40), 0);
  EXPECT_EQ(by[3].bytes, 30u);
  EXPECT_EQ(by[3].tag, 9u);
  EXPECT_EQ(std::memcmp(other_tag.data(), m3.data(), 30), 0);
  EXPECT_EQ(c.queued(0), 0u);
  c[2].post_send(0, 8, {&s2, 1}, 0);
  auto last = c.take(0, 1);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].cookie, 1u);
  EXPECT_EQ(last[0].peer, 2);
  EXPECT_EQ(std::memcmp(from2.data(), m2.data(), 50), 0);
}

TEST_P(LfMessaging, MessagesToOneselfArrive) {
  Cluster c(2, options());
  c.connect();
  auto m = pattern(3000, 5);
  std::vector<std::byte> buf(4096);
  Segment s{m.data(), m.size(), nullptr};
  c[1].post_recv(1, 3, buf.data(), buf.size(), nullptr, 1);
  c[1].post_send(1, 3, {&s, 1}, 2);
  auto got = c.take(1, 2);
  ASSERT_EQ(got.size(), 2u);
  for (auto& g : got) {
    EXPECT_EQ(g.status, OpStatus::ok) << c[1].last_error();
    if (g.type == OpType::recv) {
      EXPECT_EQ(g.peer, 1);
      EXPECT_EQ(g.bytes, 3000u);
    }
  }
  EXPECT_EQ(std::memcmp(buf.data(), m.data(), m.size()), 0);
}

TEST_P(LfMessaging, TruncationReportsAtLeastThePostedSize) {
  // Sizes that each provider truncates cleanly in libfabric 1.17 (see
  // docs/drivers/libfabric.md, Limitations): tcp;ofi_rxm only above its eager
  // limit (16 KiB) unless FI_OFI_RXM_ENABLE_DYN_RBUF=0, shm only up to its
  // inject size (4 KiB); udp;ofi_rxd does not report truncation at all.
  size_t message = 5000, posted = 1000;
  if (GetParam() == "tcp") {
    message = 200000;
    posted = 100000;
  } else if (GetParam() == "shm") {
    message = 3000;
  } else if (GetParam() == "udp" && test::quirk_version_is_current()) {
    // A known bug of the version the quirk was recorded for, asserted
    // present by libfabricQuirks.Udp117TruncationIsReportedAsOk; any other
    // libfabric runs this check.
    GTEST_SKIP() << "known libfabric " << test::kQuirkVersion
                 << " bug: udp;ofi_rxd completes truncated receives as ok, no FI_ETRUNC "
                    "(asserted by libfabricQuirks.Udp117TruncationIsReportedAsOk)";
  }
  Cluster c(2, options());
  c.connect();
  auto big = pattern(message, 9);
  std::vector<std::byte> buf(posted);
  Segment s{big.data(), big.size(), nullptr};
  c[1].post_recv(0, 4, buf.data(), buf.size(), nullptr, 1);
  c[0].post_send(1, 4, {&s, 1}, 2);
  auto got = c.take(1, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].type, OpType::recv);
  EXPECT_EQ(got[0].status, OpStatus::truncated) << c[1].last_error();
  EXPECT_EQ(got[0].cookie, 1u);
  EXPECT_EQ(got[0].peer, 0);
  EXPECT_GE(got[0].bytes, posted);
  EXPECT_LE(got[0].bytes, message);
  std::cout << "[ truncate ] " << GetParam() << ": " << message << " bytes into " << posted
            << " reported as " << got[0].bytes << "; " << c[1].last_error() << "\n";
  EXPECT_NE(c[1].last_error().find("truncated"), std::string::npos) << c[1].last_error();
  EXPECT_NE(c[1].last_error().find("rank 0"), std::string::npos) << c[1].last_error();
  // The endpoint keeps working afterwards.
  auto small = pattern(100, 10);
  Segment s2{small.data(), small.size(), nullptr};
  std::vector<std::byte> buf2(200);
  c[1].post_recv(0, 4, buf2.data(), buf2.size(), nullptr, 3);
  c[0].post_send(1, 4, {&s2, 1}, 4);
  auto next = c.take(1, 1);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].status, OpStatus::ok);
  EXPECT_EQ(next[0].bytes, 100u);
  EXPECT_EQ(std::memcmp(buf2.data(), small.data(), 100), 0);
  EXPECT_EQ(c.take(0, 2).size(), 2u);
}

TEST_P(LfMessaging, BackPressureCompletesEverySendExactlyOnce) {
  LfOptions o = options();
  o.tx_queue_depth = 16;  // a small transmit queue, to meet FI_EAGAIN early
  o.rx_queue_depth = 16;
  Cluster c(2, o);
  c.connect();
  constexpr int kCount = 3000;
  // udp;ofi_rxd 1.17 stalls after rx_size multi-packet messages (asserted by
  // libfabricQuirks.Udp117MultiPacketMessagesStallAfterRxSize): keep its
  // messages to one datagram.
  const size_t size = GetParam() == "udp" ? 1000 : 32 * 1024;
  auto m = pattern(size, 3);
  std::vector<std::byte> sink(size);
  Segment s{m.data(), m.size(), nullptr};
  for (int i = 0; i < kCount; ++i) c[1].post_recv(0, 1, sink.data(), size, nullptr, 1000000 + i);
  // Every send posted without a single poll in between.
  for (int i = 0; i < kCount; ++i) c[0].post_send(1, 1, {&s, 1}, i);
  const uint64_t eagain_at_post = c[0].eagain_count();
  const size_t queued_at_post = c[0].queued_ops();
  auto sends = c.take(0, kCount, std::chrono::seconds(60));
  auto recvs = c.take(1, kCount, std::chrono::seconds(60));
  std::cout << "[ backpressure ] " << GetParam() << ": EAGAIN while posting " << eagain_at_post
            << ", ops queued after posting " << queued_at_post << ", EAGAIN total "
            << c[0].eagain_count() << "\n";
  ASSERT_EQ(sends.size(), static_cast<size_t>(kCount));
  ASSERT_EQ(recvs.size(), static_cast<size_t>(kCount));
  std::vector<int> seen(kCount, 0);
  for (const auto& x : sends) {
    ASSERT_EQ(x.status, OpStatus::ok) << c[0].last_error();
    ASSERT_LT(x.cookie, static_cast<uint64_t>(kCount));
    ++seen[x.cookie];
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), kCount);
  std::set<uint64_t> rcookies;
  for (const auto& x : recvs) {
    EXPECT_EQ(x.status, OpStatus::ok);
    EXPECT_EQ(x.bytes, size);
    rcookies.insert(x.cookie);
  }
  EXPECT_EQ(rcookies.size(), static_cast<size_t>(kCount));
  EXPECT_GT(queued_at_post, 0u) << "the transmit queue never filled: back-pressure untested";
  EXPECT_EQ(c[0].queued_ops(), 0u);
  EXPECT_EQ(c.settle(0, std::chrono::milliseconds(50)), 0u) << "a send completed twice";
}

std::string provider_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

INSTANTIATE_TEST_SUITE_P(libfabric, LfMessaging, ::testing::Values("tcp", "shm", "sockets", "udp"),
                         provider_name);

}  // namespace
}  // namespace evb::libfabric
