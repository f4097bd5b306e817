// The verbs driver's own logic, tested without an RDMA device: address
// encoding, send-queue and credit accounting, work-request construction and
// the mapping of work-completion errors. Nothing here stands in for
// libibverbs: these functions only fill its structs.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <limits>
#include <vector>

#include "core/config.hpp"
#include "core/error.hpp"
#include "drivers/verbs/verbs_address.hpp"
#include "drivers/verbs/verbs_credits.hpp"
#include "drivers/verbs/verbs_errors.hpp"
#include "drivers/verbs/verbs_options.hpp"
#include "drivers/verbs/verbs_probe.hpp"
#include "drivers/verbs/verbs_work.hpp"

namespace evb::verbs {
namespace {

VerbsAddress sample(int ranks) {
  VerbsAddress a;
  a.lid = 0x1234;
  a.mtu = 5;
  for (int r = 0; r < ranks; ++r) a.qps.push_back(QpEndpoint{0x100u + r, 0xABCDEFu - r});
  return a;
}

TEST(VerbsAddress, RoundTripsLidAndGid) {
  VerbsAddress a = sample(3);
  VerbsAddress b = decode_address(encode_address(a), 1, 3);
  EXPECT_EQ(b.lid, 0x1234);
  EXPECT_FALSE(b.use_gid);
  ASSERT_EQ(b.qps.size(), 3u);
  EXPECT_EQ(b.qps[2].qpn, 0x102u);
  EXPECT_EQ(b.qps[2].psn, 0xABCDEDu);

  a.use_gid = true;
  a.gid_index = 3;
  a.lid = 0;
  a.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
  b = decode_address(encode_address(a), 0, 3);
  EXPECT_TRUE(b.use_gid);
  EXPECT_EQ(b.gid, a.gid);
  EXPECT_EQ(b.gid_index, 3);
}

TEST(VerbsAddress, RefusesWhatItCannotTrust) {
  const std::string good = encode_address(sample(2));
  EXPECT_THROW(decode_address(good, 1, 3), Error);  // wrong rank count
  EXPECT_THROW(decode_address("tcp://x", 1, 2), Error);
  EXPECT_THROW(decode_address(good.substr(0, good.size() - 2), 1, 2), Error);  // short
  EXPECT_THROW(decode_address(good + "00", 1, 2), Error);                      // long
  EXPECT_THROW(decode_address(good.substr(0, good.size() - 1), 1, 2), Error);  // odd
  std::string bad_hex = good;
  bad_hex.back() = 'g';
  EXPECT_THROW(decode_address(bad_hex, 1, 2), Error);
  VerbsAddress no_lid = sample(2);
  no_lid.lid = 0;
  EXPECT_THROW(decode_address(encode_address(no_lid), 1, 2), Error);
  VerbsAddress bad_mtu = sample(2);
  bad_mtu.mtu = 6;
  EXPECT_THROW(decode_address(encode_address(bad_mtu), 1, 2), Error);
  try {
    decode_address("nonsense", 7, 2);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 7"), std::string::npos) << e.what();
  }
}

TEST(VerbsSendQueue, SignalsUserOpsAndEveryIntervalInternal) {
  SendQueue q(8, 3);
  EXPECT_TRUE(q.must_signal(true));
  EXPECT_FALSE(q.must_signal(false));
  ASSERT_TRUE(q.post(1, false));
  EXPECT_FALSE(q.must_signal(false));
  ASSERT_TRUE(q.post(2, false));
  EXPECT_TRUE(q.must_signal(false));  // the third internal send in a row
  ASSERT_TRUE(q.post(3, true));
  EXPECT_FALSE(q.must_signal(false));
  std::vector<uint64_t> retired;
  EXPECT_FALSE(q.complete(2, retired));  // unsignalled: no completion can name it
  EXPECT_TRUE(retired.empty());
  ASSERT_TRUE(q.complete(3, retired));
  EXPECT_EQ(retired, (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(q.outstanding(), 0u);
}

TEST(VerbsSendQueue, FullQueueRefusesAndLastSlotIsSignalled) {
  SendQueue q(4, 4);
  for (uint64_t i = 1; i <= 3; ++i) ASSERT_TRUE(q.post(i, q.must_signal(false)));
  EXPECT_TRUE(q.must_signal(false));  // the last slot: the queue must be able to drain
  ASSERT_TRUE(q.post(4, true));
  EXPECT_TRUE(q.full());
  EXPECT_FALSE(q.post(5, true));  // back-pressure, nothing recorded
  std::vector<uint64_t> retired;
  ASSERT_TRUE(q.complete(4, retired));
  EXPECT_EQ(retired.size(), 4u);
  // Wrap around the ring.
  for (uint64_t i = 10; i < 14; ++i) ASSERT_TRUE(q.post(i, true));
  retired.clear();
  ASSERT_TRUE(q.complete(11, retired));
  EXPECT_EQ(retired, (std::vector<uint64_t>{10, 11}));
  retired.clear();
  q.drain(retired);
  EXPECT_EQ(retired, (std::vector<uint64_t>{12, 13}));
  EXPECT_EQ(q.outstanding(), 0u);
  EXPECT_THROW(SendQueue(4, 5), Error);
}

TEST(VerbsCredits, SpendReturnAndRefuseOverReturn) {
  SendCredits c(2);
  EXPECT_TRUE(c.take());
  EXPECT_TRUE(c.take());
  EXPECT_FALSE(c.take());        // hold the command back
  EXPECT_FALSE(c.give_back(3));  // more than it owes: not trusted
  EXPECT_EQ(c.available(), 0u);
  EXPECT_TRUE(c.give_back(2));
  EXPECT_FALSE(c.give_back(1));
  EXPECT_FALSE(c.give_back(std::numeric_limits<uint64_t>::max()));

  CreditReturn r(5);  // batches of 3
  r.reposted();
  r.reposted();
  EXPECT_FALSE(r.due());
  r.reposted();
  EXPECT_EQ(r.due(), 3u);
  r.reposted();
  EXPECT_EQ(r.flush(), 1u);
  EXPECT_EQ(r.pending(), 0u);
}

// A Registration as the verbs driver makes them: its descriptor points to
// the region's keys.
class KeyedRegistration : public Registration {
 public:
  KeyedRegistration(void* base, size_t size, MemoryKeys keys)
      : Registration(base, size), keys_(keys) {
    descriptor_ = &keys_;
  }

 private:
  MemoryKeys keys_;
};

TEST(VerbsWork, GathersSegmentsIntoSges) {
  std::array<std::byte, 256> mem{};
  KeyedRegistration reg(mem.data(), mem.size(), MemoryKeys{0x11, 0x22});
  const Segment segs[] = {{mem.data(), 64, &reg}, {mem.data() + 128, 100, &reg}};
  std::array<ibv_sge, 4> sges{};
  SgeList l = build_sges(segs, sges, 4, 1 << 20);
  ASSERT_TRUE(l.error.empty()) << l.error;
  EXPECT_EQ(l.count, 2u);
  EXPECT_EQ(l.bytes, 164u);
  EXPECT_EQ(sges[1].addr, reinterpret_cast<uintptr_t>(mem.data() + 128));
  EXPECT_EQ(sges[1].length, 100u);
  EXPECT_EQ(sges[1].lkey, 0x11u);

  EXPECT_FALSE(build_sges(segs, sges, 1, 1 << 20).error.empty());  // max_sge
  EXPECT_FALSE(build_sges(segs, std::span(sges).first(1), 4, 1 << 20).error.empty());
  EXPECT_FALSE(build_sges(segs, sges, 4, 100).error.empty());  // max_message
  Registration plain(mem.data(), mem.size());
  const Segment unkeyed[] = {{mem.data(), 8, &plain}};
  EXPECT_FALSE(build_sges(unkeyed, sges, 4, 1 << 20).error.empty());
  const Segment outside[] = {{mem.data() + 200, 100, &reg}};
  EXPECT_FALSE(build_sges(outside, sges, 4, 1 << 20).error.empty());
  EXPECT_FALSE(build_sges({}, sges, 4, 1 << 20).error.empty());
}

TEST(VerbsWork, SendsAndWritesWithImmediate) {
  std::array<ibv_sge, 2> sges{};
  ibv_send_wr s = make_send(7, std::span(sges).first(1), 32, true, 64);
  EXPECT_EQ(s.opcode, IBV_WR_SEND);
  EXPECT_EQ(s.wr_id, 7u);
  EXPECT_EQ(s.num_sge, 1);
  EXPECT_TRUE(s.send_flags & IBV_SEND_SIGNALED);
  EXPECT_TRUE(s.send_flags & IBV_SEND_INLINE);
  s = make_send(8, sges, 65, false, 64);
  EXPECT_FALSE(s.send_flags & (IBV_SEND_SIGNALED | IBV_SEND_INLINE));

  const RemoteRegion remote{0x7f0000001000ull, 0xBEEF, 4096};
  ibv_send_wr w{};
  ASSERT_FALSE(make_write(9, sges, 1024, remote, 3072, 0x01020304u, true, w));
  EXPECT_EQ(w.opcode, IBV_WR_RDMA_WRITE_WITH_IMM);
  EXPECT_EQ(w.imm_data, htonl(0x01020304u));
  EXPECT_EQ(w.wr.rdma.remote_addr, 0x7f0000001000ull + 3072);
  EXPECT_EQ(w.wr.rdma.rkey, 0xBEEFu);
  EXPECT_EQ(w.num_sge, 2);
  ASSERT_FALSE(make_write(9, sges, 16, remote, 0, std::nullopt, false, w));
  EXPECT_EQ(w.opcode, IBV_WR_RDMA_WRITE);
  EXPECT_TRUE(make_write(9, sges, 1025, remote, 3072, 1u, true, w));  // past the end
  EXPECT_TRUE(make_write(9, sges, 1, remote, std::numeric_limits<uint64_t>::max(), 1u, true, w));
}

TEST(VerbsWork, PackedRegionRoundTripsAndIsChecked) {
  const RemoteRegion r{0x7f0000001000ull, 0xCAFE, 1 << 20};
  const std::string packed = pack_region(r);
  ASSERT_EQ(packed.size(), kPackedRegionSize);
  const auto* p = reinterpret_cast<const std::byte*>(packed.data());
  auto back = unpack_region({p, packed.size()});
  ASSERT_TRUE(back);
  EXPECT_EQ(back->address, r.address);
  EXPECT_EQ(back->rkey, r.rkey);
  EXPECT_EQ(back->size, r.size);
  EXPECT_FALSE(unpack_region({p, packed.size() - 1}));
  const std::string empty = pack_region(RemoteRegion{0x1000, 1, 0});
  EXPECT_FALSE(unpack_region({reinterpret_cast<const std::byte*>(empty.data()), empty.size()}));
  const std::string wraps = pack_region(RemoteRegion{~0ull - 10, 1, 100});
  EXPECT_FALSE(unpack_region({reinterpret_cast<const std::byte*>(wraps.data()), wraps.size()}));
}

TEST(VerbsErrors, WorkCompletionErrorsNameThePeer) {
  WcError e = wc_error(IBV_WC_RETRY_EXC_ERR, "rdma_write", 4);
  EXPECT_EQ(e.status, OpStatus::peer_lost);
  EXPECT_NE(e.message.find("rank 4"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("retry_count"), std::string::npos) << e.message;
  EXPECT_EQ(wc_error(IBV_WC_WR_FLUSH_ERR, "send", 1).status, OpStatus::peer_lost);
  EXPECT_EQ(wc_error(IBV_WC_REM_ACCESS_ERR, "rdma_write", 1).status, OpStatus::error);
  EXPECT_EQ(wc_error(IBV_WC_RNR_RETRY_EXC_ERR, "send", 1).status, OpStatus::error);
  EXPECT_EQ(wc_error(IBV_WC_LOC_LEN_ERR, "recv", kAnyPeer).status, OpStatus::truncated);
  EXPECT_NE(wc_error(IBV_WC_GENERAL_ERR, "recv", kAnyPeer).message.find("a peer"),
            std::string::npos);
}

TEST(VerbsOptions, ParsesAndRefuses) {
  Config c;
  c.driver_options = {{"device", "mlx5_0"},      {"port", "2"},
                      {"gid_index", "3"},        {"timeout", "18"},
                      {"retry_count", "5"},      {"send_queue_depth", "512"},
                      {"signal_interval", "32"}, {"keepalive_interval", "250ms"}};
  VerbsOptions o = parse_verbs_options(&c);
  EXPECT_EQ(o.keepalive_interval.count(), 250);
  EXPECT_EQ(o.device, "mlx5_0");
  EXPECT_EQ(o.port, 2);
  EXPECT_EQ(o.gid_index, 3);
  EXPECT_EQ(o.timeout, 18);
  EXPECT_EQ(o.send_queue_depth, 512u);
  EXPECT_EQ(parse_verbs_options(nullptr).gid_index, -1);
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"port", "0"},
                                                        {"gid_index", "-2"},
                                                        {"timeout", "32"},
                                                        {"retry_count", "8"},
                                                        {"send_queue_depth", "8"},
                                                        {"device", "a b"},
                                                        {"command_credits", "0"},
                                                        {"keepalive_interval", "soon"}}) {
    Config bad;
    bad.driver_options = {{k, v}};
    EXPECT_THROW(parse_verbs_options(&bad), ConfigError) << k << "=" << v;
  }
  Config combo;
  combo.driver_options = {{"send_queue_depth", "16"}, {"signal_interval", "17"}};
  EXPECT_THROW(parse_verbs_options(&combo), ConfigError);
}

// Calls the real libibverbs: on this machine (no device) it must say so; where
// a device exists the probe lists it.
TEST(VerbsProbe, SaysWhatItSees) {
  const DriverProbe p = probe_verbs();
  EXPECT_NE(p.library_version.find("libibverbs"), std::string::npos);
  if (ports().empty()) {
    EXPECT_FALSE(p.can_run);
    EXPECT_EQ(p.reason, "built; no RDMA device found");
  } else {
    EXPECT_NE(p.details.find("devices:"), std::string::npos);
  }
}

}  // namespace
}  // namespace evb::verbs
