// The verbs driver's data-path logic, tested without an RDMA device: the
// attributes of each queue-pair transition, the SEND header and hello,
// credit returns as a wrapping running count, work-request ids, receive
// stocking, and the chunking of a gathered message. These functions fill
// libibverbs' structs or plain bytes; nothing here stands in for it.
#include "drivers/verbs/verbs_wire.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <vector>

#include "drivers/verbs/verbs_options.hpp"
#include "drivers/verbs/verbs_qp_attr.hpp"
#include "drivers/verbs/verbs_wc.hpp"

namespace evb::verbs {
namespace {

VerbsAddress peer_address(bool gid) {
  VerbsAddress a;
  a.lid = 0x21;
  a.mtu = IBV_MTU_2048;
  a.use_gid = gid;
  if (gid) a.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  a.qps = {QpEndpoint{0x111, 0x222}, QpEndpoint{}, QpEndpoint{0x333, 0xFFFFFF}};
  return a;
}

TEST(VerbsQpAttr, InitAllowsRemoteWritesOnTheConfiguredPort) {
  LocalPort local;
  local.port = 2;
  const QpTransition t = init_transition(local);
  EXPECT_TRUE(t.error.empty());
  EXPECT_EQ(t.attr.qp_state, IBV_QPS_INIT);
  EXPECT_EQ(t.attr.port_num, 2);
  EXPECT_EQ(t.attr.qp_access_flags, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  EXPECT_EQ(t.mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

TEST(VerbsQpAttr, RtrOnInfiniBandUsesTheLidAndTheSmallerMtu) {
  LocalPort local;
  local.port = 1;
  local.mtu = IBV_MTU_4096;
  const VerbsAddress peer = peer_address(false);
  const QpTransition t = rtr_transition(local, peer, peer.qps[2]);
  ASSERT_TRUE(t.error.empty()) << t.error;
  EXPECT_EQ(t.attr.qp_state, IBV_QPS_RTR);
  EXPECT_EQ(t.attr.path_mtu, IBV_MTU_2048);
  EXPECT_EQ(t.attr.dest_qp_num, 0x333u);
  EXPECT_EQ(t.attr.rq_psn, 0xFFFFFFu);
  EXPECT_EQ(t.attr.ah_attr.dlid, 0x21);
  EXPECT_EQ(t.attr.ah_attr.is_global, 0);
  EXPECT_EQ(t.attr.ah_attr.port_num, 1);
  EXPECT_EQ(t.attr.min_rnr_timer, kMinRnrTimer);
  EXPECT_NE(t.mask & IBV_QP_AV, 0);
  EXPECT_NE(t.mask & IBV_QP_DEST_QPN, 0);
  EXPECT_NE(t.mask & IBV_QP_RQ_PSN, 0);
}

TEST(VerbsQpAttr, RtrOnRoceRoutesByGid) {
  LocalPort local;
  local.mtu = IBV_MTU_1024;
  local.use_gid = true;
  local.gid_index = 3;
  const VerbsAddress peer = peer_address(true);
  const QpTransition t = rtr_transition(local, peer, peer.qps[0]);
  ASSERT_TRUE(t.error.empty()) << t.error;
  EXPECT_EQ(t.attr.path_mtu, IBV_MTU_1024);
  EXPECT_EQ(t.attr.ah_attr.is_global, 1);
  EXPECT_EQ(t.attr.ah_attr.grh.sgid_index, 3);
  EXPECT_EQ(t.attr.ah_attr.grh.hop_limit, kHopLimit);
  EXPECT_EQ(t.attr.ah_attr.grh.dgid.raw[0], 0xfe);
  EXPECT_EQ(t.attr.ah_attr.grh.dgid.raw[15], 8);
}

TEST(VerbsQpAttr, RtrRefusesAPeerItCannotRoute) {
  LocalPort gid_port;
  gid_port.mtu = IBV_MTU_1024;
  gid_port.use_gid = true;
  const VerbsAddress lid_only = peer_address(false);
  EXPECT_NE(rtr_transition(gid_port, lid_only, lid_only.qps[0]).error.find("gid_index"),
            std::string::npos);
  LocalPort lid_port;
  lid_port.mtu = IBV_MTU_1024;
  VerbsAddress no_lid = peer_address(true);
  no_lid.lid = 0;
  EXPECT_FALSE(rtr_transition(lid_port, no_lid, no_lid.qps[0]).error.empty());
  // The slot for this rank is empty: the peer made no queue pair for it.
  EXPECT_FALSE(rtr_transition(lid_port, lid_only, lid_only.qps[1]).error.empty());
}

TEST(VerbsQpAttr, RtsTakesTimeoutsAndRetriesFromOptions) {
  VerbsOptions o = parse_verbs_options(nullptr);
  o.timeout = 18;
  o.retry_count = 5;
  o.rnr_retry = 2;
  const QpTransition t = rts_transition(o, 0x1234567);  // above 24 bits: masked
  EXPECT_EQ(t.attr.qp_state, IBV_QPS_RTS);
  EXPECT_EQ(t.attr.timeout, 18);
  EXPECT_EQ(t.attr.retry_cnt, 5);
  EXPECT_EQ(t.attr.rnr_retry, 2);
  EXPECT_EQ(t.attr.sq_psn, 0x234567u);
  EXPECT_EQ(t.mask, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                        IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

TEST(VerbsWire, HeaderRoundTripsAndRefusesOtherBytes) {
  std::array<std::byte, kHelloBytes> b{};
  encode_header(WireHeader{WireKind::data_first, 0xDEADBEEF, 123456789012ull}, b.data());
  auto h = decode_header(std::span(b.data(), kHeaderBytes + 7));
  ASSERT_TRUE(h);
  EXPECT_EQ(h->kind, WireKind::data_first);
  EXPECT_EQ(h->tag, 0xDEADBEEFu);
  EXPECT_EQ(h->a, 123456789012ull);
  EXPECT_FALSE(decode_header(std::span(b.data(), kHeaderBytes - 1)));  // short
  std::array<std::byte, kHelloBytes> bad = b;
  bad[0] = std::byte{0};  // magic
  EXPECT_FALSE(decode_header(std::span(bad.data(), kHeaderBytes)));
  bad = b;
  bad[2] = std::byte{9};  // kind
  EXPECT_FALSE(decode_header(std::span(bad.data(), kHeaderBytes)));
  bad = b;
  bad[3] = std::byte{1};  // reserved
  EXPECT_FALSE(decode_header(std::span(bad.data(), kHeaderBytes)));
  // A continuation carries no tag or length; a bye nothing at all.
  encode_header(WireHeader{WireKind::data_more, 5, 0}, bad.data());
  EXPECT_FALSE(decode_header(std::span(bad.data(), kHeaderBytes + 1)));
  encode_header(WireHeader{WireKind::bye, 0, 0}, bad.data());
  EXPECT_TRUE(decode_header(std::span(bad.data(), kHeaderBytes)));
  EXPECT_FALSE(decode_header(std::span(bad.data(), kHeaderBytes + 1)));
}

TEST(VerbsWire, HelloCarriesRunIdAndCreditWords) {
  std::array<std::byte, kHelloBytes> b{};
  encode_hello(0x0102030405060708ull, HelloBody{0x7f0012345678ull, 0xABCD, 64}, b.data());
  const auto h = decode_header(b);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->kind, WireKind::hello);
  EXPECT_EQ(h->a, 0x0102030405060708ull);
  const HelloBody body = decode_hello_body(b);
  EXPECT_EQ(body.credit_address, 0x7f0012345678ull);
  EXPECT_EQ(body.credit_rkey, 0xABCDu);
  EXPECT_EQ(body.ranks, 64u);
  EXPECT_FALSE(decode_header(std::span(b.data(), kHelloBytes - 1)));  // truncated hello
}

TEST(VerbsWire, CreditDeltaWrapsAndRefusesMoreThanOwed) {
  EXPECT_EQ(credit_delta(10, 4, 8), 6u);
  EXPECT_EQ(credit_delta(4, 4, 0), 0u);
  EXPECT_EQ(credit_delta(2, 0xFFFFFFFEu, 4), 4u);  // the running count wrapped
  EXPECT_FALSE(credit_delta(10, 4, 5));            // six back, five owed
  EXPECT_FALSE(credit_delta(3, 4, 100));           // went backwards
}

TEST(VerbsWire, WorkRequestIdsSeparateReceivesAndGenerations) {
  const uint64_t id = make_wr_id(77, 0xFFFFFFFFu);  // generation kept to 31 bits
  EXPECT_FALSE(is_recv(id));
  EXPECT_EQ(wr_index(id), 77u);
  EXPECT_EQ(wr_generation(id), 0x7FFFFFFFu);
  EXPECT_NE(make_wr_id(77, 1), make_wr_id(77, 2));
  EXPECT_TRUE(is_recv(recv_wr_id(5)));
  EXPECT_EQ(recv_wr_id(5) & ~kRecvBit, 5u);
}

TEST(VerbsWire, ReceivePlanPrefersASharedQueueThatIsLargeEnough) {
  ReceivePlan p = plan_receives(64, 10, DeviceLimits{16384, 1024, 32768});
  EXPECT_TRUE(p.shared);
  EXPECT_EQ(p.total, 640u);
  EXPECT_EQ(p.per_qp, 0u);
  p = plan_receives(64, 10, DeviceLimits{16384, 1024, 600});  // shared queue too small
  EXPECT_FALSE(p.shared);
  EXPECT_EQ(p.per_qp, 64u);
  EXPECT_EQ(p.total, 640u);
  p = plan_receives(64, 10, DeviceLimits{16384, 0, 0});  // no shared queues
  EXPECT_FALSE(p.shared);
  EXPECT_EQ(p.per_qp, 64u);
  p = plan_receives(4096, 2, DeviceLimits{1024, 0, 0});
  EXPECT_NE(p.error.find("command_credits"), std::string::npos) << p.error;
}

TEST(VerbsWire, GatherCopyCrossesSegments) {
  const std::vector<char> a = {'a', 'b', 'c'};
  const std::vector<char> b = {'d'};
  const std::vector<char> c = {'e', 'f', 'g', 'h'};
  const std::vector<Segment> segs = {{a.data(), a.size(), nullptr},
                                     {b.data(), b.size(), nullptr},
                                     {c.data(), 0, nullptr},
                                     {c.data(), c.size(), nullptr}};
  std::array<std::byte, 8> out{};
  gather_copy(segs, 2, out.data(), 4);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(out.data()), 4), "cdef");
  gather_copy(segs, 0, out.data(), 8);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(out.data()), 8), "abcdefgh");
}

TEST(VerbsWire, ChunkCountCoversEveryLength) {
  const size_t buf = 1024;
  const size_t room = chunk_payload(buf);
  EXPECT_EQ(room, buf - kHeaderBytes);
  EXPECT_EQ(chunk_count(0, buf), 1u);
  EXPECT_EQ(chunk_count(1, buf), 1u);
  EXPECT_EQ(chunk_count(room, buf), 1u);
  EXPECT_EQ(chunk_count(room + 1, buf), 2u);
  EXPECT_EQ(chunk_count(10 * room, buf), 10u);
}

TEST(VerbsWc, WriteWithImmediateBecomesARemoteWrite) {
  ibv_wc wc{};
  wc.status = IBV_WC_SUCCESS;
  wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
  wc.wc_flags = IBV_WC_WITH_IMM;
  wc.byte_len = 524288;
  wc.imm_data = htonl(0x01020304u);  // network byte order on the wire
  const RecvEvent e = classify_recv(wc, 4, 16384);
  ASSERT_EQ(e.kind, RecvKind::remote_write);
  EXPECT_EQ(e.completion.type, OpType::remote_write);
  EXPECT_EQ(e.completion.status, OpStatus::ok);
  EXPECT_EQ(e.completion.peer, 4);
  EXPECT_EQ(e.completion.bytes, 524288u);
  EXPECT_EQ(e.completion.immediate, 0x01020304u);
  EXPECT_EQ(e.completion.cookie, 0u);
}

TEST(VerbsWc, SendsAreMessagesOnlyWhenTheyCouldBeOurs) {
  ibv_wc wc{};
  wc.status = IBV_WC_SUCCESS;
  wc.opcode = IBV_WC_RECV;
  wc.byte_len = 100;
  RecvEvent e = classify_recv(wc, 1, 16384);
  EXPECT_EQ(e.kind, RecvKind::message);
  EXPECT_EQ(e.bytes, 100u);
  wc.byte_len = 16385;  // longer than a receive buffer
  EXPECT_EQ(classify_recv(wc, 1, 16384).kind, RecvKind::foreign);
  wc.byte_len = 100;
  wc.wc_flags = IBV_WC_WITH_IMM;  // SEND WITH IMMEDIATE: never sent by this driver
  EXPECT_EQ(classify_recv(wc, 1, 16384).kind, RecvKind::foreign);
  wc.wc_flags = 0;
  wc.opcode = IBV_WC_RECV_RDMA_WITH_IMM;  // no immediate flag: not a write we know
  EXPECT_EQ(classify_recv(wc, 1, 16384).kind, RecvKind::foreign);
  wc.opcode = IBV_WC_RECV;
  wc.status = IBV_WC_WR_FLUSH_ERR;
  EXPECT_EQ(classify_recv(wc, 1, 16384).kind, RecvKind::foreign);
}

}  // namespace
}  // namespace evb::verbs
