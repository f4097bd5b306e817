// One-sided writes over every provider usable here, with the immediate as
// remote CQ data (native) and as an ordered notification (emulated).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "lf_test_util.hpp"

namespace evb::libfabric {
namespace {

using test::Cluster;
using test::pattern;

using RmaParam = std::tuple<std::string, ImmediateMode>;

class LfRma : public ::testing::TestWithParam<RmaParam> {
 protected:
  void SetUp() override { LF_REQUIRE_PROVIDER(provider()); }
  const std::string& provider() const { return std::get<0>(GetParam()); }
  ImmediateMode mode() const { return std::get<1>(GetParam()); }
  bool emulated() const { return mode() == ImmediateMode::emulated; }
  // remote_write.bytes is exact unless a native immediate was forced on a
  // provider that reports the length neither itself nor in packed CQ data.
  static size_t expected_length(LfDriver& writer, LfDriver& target, size_t written) {
    return writer.immediate_emulated() || writer.immediate_packed() ||
                   target.immediate_reports_length()
               ? written
               : 0;
  }
  LfOptions options() const {
    LfOptions o = test::options_for(provider());
    o.write_immediate = std::get<1>(GetParam());
    return o;
  }
};

// Polls `rank` until `pred` holds or 10 s pass.
template <class Pred>
bool eventually(Cluster& c, Pred pred) {
  const auto deadline = test::Clock::now() + std::chrono::seconds(10);
  while (test::Clock::now() < deadline) {
    if (pred()) return true;
    c.pump();
  }
  return pred();
}

TEST_P(LfRma, WriteWithImmediateLandsExactlyAtTheOffset) {
  Cluster c(2, options());
  c.connect();
  if (emulated()) {
    EXPECT_TRUE(c[0].immediate_emulated());
  }
  if (mode() == ImmediateMode::native) {
    EXPECT_FALSE(c[0].immediate_emulated());
  }
  if (mode() == ImmediateMode::automatic) {
    // auto: native exactly when the length arrives, from the provider or
    // packed into the CQ data's upper bits.
    EXPECT_EQ(c[0].immediate_emulated(),
              !c[0].immediate_reports_length() && !c[0].immediate_packed());
  }
  EXPECT_EQ(c[0].capabilities().write_immediate, !c[0].immediate_emulated());
  std::vector<std::byte> target(64 * 1024, std::byte{0xEE});
  auto target_reg = c[1].register_memory(target.data(), target.size());
  ASSERT_FALSE(target_reg->packed_key().empty());
  EXPECT_LE(target_reg->packed_key().size(), c[1].capabilities().packed_key_size);
  auto key = c[0].unpack_key(1, target_reg->packed_key());
  ASSERT_EQ(key->size(), target.size());
  EXPECT_EQ(key->peer(), 1);

  auto source = pattern(3000, 21);
  auto source_reg = c[0].register_memory(source.data(), source.size());
  const size_t nseg = std::min<size_t>(2, c[0].capabilities().max_segments);
  Segment segs[2] = {{source.data(), 1000, source_reg.get()},
                     {source.data() + 1000, 2000, source_reg.get()}};
  if (nseg == 1) segs[0].size = 3000;
  const size_t offset = 1234;
  c[0].rdma_write(1, {segs, nseg}, *key, offset, 0xABCD1234u, 77);

  auto mine = c.take(0, 1);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].type, OpType::rdma_write);
  EXPECT_EQ(mine[0].status, OpStatus::ok) << c[0].last_error();
  EXPECT_EQ(mine[0].cookie, 77u);
  EXPECT_EQ(mine[0].peer, 1);
  EXPECT_EQ(mine[0].bytes, 3000u);

  auto theirs = c.take(1, 1);
  ASSERT_EQ(theirs.size(), 1u);
  EXPECT_EQ(theirs[0].type, OpType::remote_write);
  EXPECT_EQ(theirs[0].status, OpStatus::ok);
  EXPECT_EQ(theirs[0].cookie, 0u);
  EXPECT_EQ(theirs[0].immediate, 0xABCD1234u);
  std::cout << "[ remote_write ] " << provider() << " " << to_string(mode()) << " ("
            << (c[1].immediate_emulated() ? "emulated" : "native")
            << ", provider reports the length: " << c[1].immediate_reports_length()
            << ", packed: " << c[0].immediate_packed() << "): bytes=" << theirs[0].bytes
            << " peer=" << theirs[0].peer << "\n";
  EXPECT_EQ(theirs[0].bytes, expected_length(c[0], c[1], 3000));
  if (c[0].immediate_emulated() || c[0].immediate_packed()) {
    EXPECT_EQ(theirs[0].peer, 0);  // the notification, or the packed data, names its writer
  } else {
    // FI_SOURCE where the provider fills it for remote CQ data (shm,
    // sockets), else unknown (tcp;ofi_rxm, udp;ofi_rxd report address 0).
    EXPECT_TRUE(theirs[0].peer == 0 || theirs[0].peer == kAnyPeer) << theirs[0].peer;
  }
  // The remote_write completion comes after all the bytes landed.
  for (size_t i = 0; i < target.size(); ++i) {
    const std::byte expected =
        i >= offset && i < offset + 3000 ? source[i - offset] : std::byte{0xEE};
    ASSERT_EQ(target[i], expected) << "byte " << i;
  }
  key.reset();
  c.shutdown_all();
}

TEST_P(LfRma, WriteWithoutImmediateIsSilentAtTheTarget) {
  Cluster c(2, options());
  c.connect();
  std::vector<std::byte> target(8192, std::byte{0});
  auto target_reg = c[1].register_memory(target.data(), target.size());
  auto key = c[0].unpack_key(1, target_reg->packed_key());
  auto source = pattern(4096, 5);
  auto source_reg = c[0].register_memory(source.data(), source.size());
  Segment s{source.data(), source.size(), source_reg.get()};
  c[0].rdma_write(1, {&s, 1}, *key, 4096, std::nullopt, 5);
  auto mine = c.take(0, 1);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].status, OpStatus::ok) << c[0].last_error();
  EXPECT_EQ(mine[0].cookie, 5u);
  EXPECT_TRUE(eventually(c, [&] {
    return std::memcmp(target.data() + 4096, source.data(), source.size()) == 0;
  })) << "the written bytes never appeared";
  EXPECT_TRUE(std::all_of(target.begin(), target.begin() + 4096,
                          [](std::byte b) { return b == std::byte{0}; }));
  EXPECT_EQ(c.settle(1, std::chrono::milliseconds(100)), 0u)
      << "a write without immediate produced a completion at the target";
}

TEST_P(LfRma, ManyImmediatesArriveOncePerWrite) {
  Cluster c(2, options());
  c.connect();
  constexpr int kWrites = 200;
  constexpr size_t kChunk = 1024;
  std::vector<std::byte> target(kWrites * kChunk, std::byte{0});
  auto target_reg = c[1].register_memory(target.data(), target.size());
  auto key = c[0].unpack_key(1, target_reg->packed_key());
  auto source = pattern(kWrites * kChunk, 8);
  auto source_reg = c[0].register_memory(source.data(), source.size());
  for (int i = 0; i < kWrites; ++i) {
    Segment s{source.data() + i * kChunk, kChunk, source_reg.get()};
    c[0].rdma_write(1, {&s, 1}, *key, i * kChunk, static_cast<uint32_t>(i), 1000 + i);
  }
  auto mine = c.take(0, kWrites);
  auto theirs = c.take(1, kWrites);
  ASSERT_EQ(mine.size(), static_cast<size_t>(kWrites));
  ASSERT_EQ(theirs.size(), static_cast<size_t>(kWrites));
  std::set<uint64_t> cookies;
  for (const auto& m : mine) {
    EXPECT_EQ(m.status, OpStatus::ok) << c[0].last_error();
    cookies.insert(m.cookie);
  }
  EXPECT_EQ(cookies.size(), static_cast<size_t>(kWrites));
  std::set<uint32_t> imms;
  for (const auto& t : theirs) {
    EXPECT_EQ(t.type, OpType::remote_write);
    imms.insert(t.immediate);
    // Each notification follows its own write's data.
    const size_t at = t.immediate * kChunk;
    ASSERT_LT(t.immediate, static_cast<uint32_t>(kWrites));
    EXPECT_EQ(std::memcmp(target.data() + at, source.data() + at, kChunk), 0) << t.immediate;
  }
  EXPECT_EQ(imms.size(), static_cast<size_t>(kWrites));
  EXPECT_EQ(c.settle(1, std::chrono::milliseconds(50)), 0u);
  EXPECT_EQ(std::memcmp(target.data(), source.data(), target.size()), 0);
}

TEST_P(LfRma, LargeWritesLandWithTheirImmediates) {
  // 512 KiB fragments plus a 64-byte header, gathered, as event building
  // writes them (shm switches protocol above 4 KiB, ofi_rxm above 16 KiB).
  // Between processes, shm also puts garbage into op_context of such writes'
  // remote CQ data: the integration tests eb_libfabric_shm_*_write cover that.
  Cluster c(2, options());
  c.connect();
  constexpr size_t kSize = 512 * 1024 + 64;
  constexpr int kWrites = 8;
  std::vector<std::byte> target(kWrites * kSize, std::byte{0});
  auto target_reg = c[1].register_memory(target.data(), target.size());
  auto key = c[0].unpack_key(1, target_reg->packed_key());
  auto source = pattern(kWrites * kSize, 12);
  auto source_reg = c[0].register_memory(source.data(), source.size());
  const size_t nseg = std::min<size_t>(2, c[0].capabilities().max_segments);
  for (int i = 0; i < kWrites; ++i) {
    std::byte* at = source.data() + i * kSize;
    Segment segs[2] = {{at, 64, source_reg.get()}, {at + 64, kSize - 64, source_reg.get()}};
    if (nseg == 1) segs[0].size = kSize;
    c[0].rdma_write(1, {segs, nseg}, *key, i * kSize, 100u + i, i);
  }
  auto mine = c.take(0, kWrites);
  auto theirs = c.take(1, kWrites);
  ASSERT_EQ(mine.size(), static_cast<size_t>(kWrites));
  ASSERT_EQ(theirs.size(), static_cast<size_t>(kWrites));
  for (const auto& m : mine) EXPECT_EQ(m.status, OpStatus::ok) << c[0].last_error();
  std::set<uint32_t> imms;
  for (const auto& t : theirs) {
    ASSERT_EQ(t.type, OpType::remote_write);
    EXPECT_EQ(t.bytes, expected_length(c[0], c[1], kSize))
        << "remote_write reports the length written";
    imms.insert(t.immediate);
  }
  EXPECT_EQ(imms.size(), static_cast<size_t>(kWrites));
  EXPECT_EQ(std::memcmp(target.data(), source.data(), target.size()), 0);
}

TEST_P(LfRma, OutOfRangeAndForeignKeysAreRefused) {
  Cluster c(3, options());
  c.connect();
  std::vector<std::byte> target(4096, std::byte{0x11});
  auto target_reg = c[1].register_memory(target.data(), target.size());
  auto key = c[0].unpack_key(1, target_reg->packed_key());
  auto source = pattern(200, 3);
  auto source_reg = c[0].register_memory(source.data(), source.size());
  Segment s{source.data(), 100, source_reg.get()};
  c[0].rdma_write(1, {&s, 1}, *key, 4096 - 10, 7u, 1);  // 90 bytes past the end
  auto r1 = c.take(0, 1);
  ASSERT_EQ(r1.size(), 1u);
  EXPECT_EQ(r1[0].type, OpType::rdma_write);
  EXPECT_EQ(r1[0].status, OpStatus::error);
  EXPECT_EQ(r1[0].cookie, 1u);
  EXPECT_NE(c[0].last_error().find("do not fit"), std::string::npos) << c[0].last_error();
  EXPECT_NE(c[0].last_error().find("rank 1"), std::string::npos) << c[0].last_error();

  c[0].rdma_write(1, {&s, 1}, *key, uint64_t{1} << 62, 7u, 2);  // offset beyond the region
  auto r2 = c.take(0, 1);
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_EQ(r2[0].status, OpStatus::error);
  EXPECT_EQ(r2[0].cookie, 2u);

  c[0].rdma_write(2, {&s, 1}, *key, 0, 7u, 3);  // rank 1's key used for rank 2
  auto r3 = c.take(0, 1);
  ASSERT_EQ(r3.size(), 1u);
  EXPECT_EQ(r3[0].status, OpStatus::error);
  EXPECT_NE(c[0].last_error().find("belongs to rank 1"), std::string::npos) << c[0].last_error();

  Segment outside{source.data() + 150, 100, source_reg.get()};  // past its registration
  c[0].rdma_write(1, {&outside, 1}, *key, 0, 7u, 4);
  auto r4 = c.take(0, 1);
  ASSERT_EQ(r4.size(), 1u);
  EXPECT_EQ(r4[0].status, OpStatus::error);
  EXPECT_NE(c[0].last_error().find("outside its registration"), std::string::npos);

  // Nothing reached the target.
  EXPECT_EQ(c.settle(1, std::chrono::milliseconds(100)), 0u);
  EXPECT_EQ(c.settle(2, std::chrono::milliseconds(10)), 0u);
  EXPECT_TRUE(
      std::all_of(target.begin(), target.end(), [](std::byte b) { return b == std::byte{0x11}; }));
  // An exact fit still works.
  c[0].rdma_write(1, {&s, 1}, *key, 4096 - 100, 9u, 5);
  auto ok = c.take(0, 1);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].status, OpStatus::ok) << c[0].last_error();
  EXPECT_EQ(c.take(1, 1).size(), 1u);
}

std::string rma_name(const ::testing::TestParamInfo<RmaParam>& info) {
  return std::get<0>(info.param) + "_" + to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(libfabric, LfRma,
                         ::testing::Combine(::testing::Values("tcp", "shm", "sockets", "udp"),
                                            ::testing::Values(ImmediateMode::automatic,
                                                              ImmediateMode::native,
                                                              ImmediateMode::emulated)),
                         rma_name);

TEST(libfabricKeys, MalformedPackedKeysAreRefusedNamingThePeer) {
  LF_REQUIRE_PROVIDER("tcp");
  Cluster c(2, test::options_for("tcp"));
  c.connect();
  std::vector<std::byte> mem(4096);
  auto reg = c[1].register_memory(mem.data(), mem.size());
  const std::vector<std::byte> good = reg->packed_key();
  ASSERT_NO_THROW(c[0].unpack_key(1, good));
  auto expect_refused = [&](std::vector<std::byte> bytes, const char* what) {
    try {
      c[0].unpack_key(1, bytes);
      ADD_FAILURE() << what << ": accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("rank 1"), std::string::npos)
          << what << ": " << e.what();
    }
  };
  expect_refused({}, "empty");
  expect_refused(std::vector<std::byte>(good.begin(), good.end() - 1), "one byte short");
  auto longer = good;
  longer.push_back(std::byte{0});
  expect_refused(longer, "one byte too many");
  auto version = good;
  version[0] = std::byte{9};
  expect_refused(version, "unknown version");
  auto flags = good;
  flags[1] ^= std::byte{0x80};
  expect_refused(flags, "unknown flag");
  auto raw = good;
  raw[1] ^= std::byte{0x01};  // claims a raw key, the domain has none
  expect_refused(raw, "raw flag");
  auto reserved = good;
  reserved[5] = std::byte{1};
  expect_refused(reserved, "reserved bytes");
  auto empty_region = good;
  std::fill(empty_region.begin() + 16, empty_region.begin() + 24, std::byte{0});
  expect_refused(empty_region, "empty region");
  try {
    c[0].unpack_key(5, good);
    ADD_FAILURE() << "a key for rank 5 of 2 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 5"), std::string::npos) << e.what();
  }
}

TEST(libfabricCqData, PackingHoldsTheWriterAndTheLength) {
  EXPECT_EQ(CqDataPacking::for_ranks(1).rank_bits, 0u);
  EXPECT_EQ(CqDataPacking::for_ranks(2).rank_bits, 1u);
  EXPECT_EQ(CqDataPacking::for_ranks(3).rank_bits, 2u);
  EXPECT_EQ(CqDataPacking::for_ranks(1024).rank_bits, 10u);
  EXPECT_EQ(CqDataPacking::for_ranks(1025).rank_bits, 11u);
  EXPECT_EQ(CqDataPacking::for_ranks(1).max_bytes(), 0xFFFFFFFFu);
  EXPECT_EQ(CqDataPacking::for_ranks(1024).max_bytes(), (uint64_t{1} << 22) - 1);
  const auto p = CqDataPacking::for_ranks(1000);
  for (uint64_t writer : {0u, 1u, 517u, 999u}) {
    for (uint64_t bytes : {uint64_t{0}, uint64_t{1}, uint64_t{524352}, p.max_bytes()}) {
      const uint64_t data = p.pack(0xFEDCBA98u, writer, bytes);
      const auto u = p.unpack(data);
      EXPECT_EQ(u.immediate, 0xFEDCBA98u);
      EXPECT_EQ(u.writer, writer);
      EXPECT_EQ(u.bytes, bytes);
    }
  }
  EXPECT_FALSE(p.fits(p.max_bytes() + 1));
  // A packed write but rank 0's empty one has its upper half set: the target
  // tells it from a plain 32-bit immediate.
  EXPECT_NE(p.pack(7, 0, 1) >> 32, 0u);
  EXPECT_NE(p.pack(7, 1, 0) >> 32, 0u);
}

// tcp;ofi_rxm reports neither the length nor the writer of remote CQ data:
// write_immediate: native used to report bytes=0 and no writer there; they now
// travel packed in the CQ data. auto stays emulated (measured no faster).
TEST(libfabricCqData, TcpNativeCarriesLengthAndWriterInTheCqData) {
  LF_REQUIRE_PROVIDER("tcp");
  {
    Cluster a(2, test::options_for("tcp"));
    a.connect();
    EXPECT_TRUE(a[0].immediate_emulated()) << "auto over tcp;ofi_rxm";
    EXPECT_FALSE(a[0].immediate_packed());
    a.shutdown_all();
  }
  LfOptions o = test::options_for("tcp");
  o.write_immediate = ImmediateMode::native;
  Cluster c(3, o);
  c.connect();
  ASSERT_FALSE(c[2].immediate_reports_length()) << "tcp;ofi_rxm now reports the length";
  EXPECT_TRUE(c[2].immediate_packed());
  EXPECT_FALSE(c[2].immediate_emulated());
  EXPECT_TRUE(c[2].capabilities().write_immediate);
  std::vector<std::byte> target(8192, std::byte{0});
  auto target_reg = c[1].register_memory(target.data(), target.size());
  auto key = c[2].unpack_key(1, target_reg->packed_key());
  auto source = pattern(6000, 9);
  auto source_reg = c[2].register_memory(source.data(), source.size());
  // The second write is longer than the packed limit set here: it goes with
  // a notification, and still arrives with its length and writer.
  c[2].limit_packed_bytes(4000);
  for (size_t n : {size_t{3000}, size_t{6000}}) {
    Segment s{source.data(), n, source_reg.get()};
    c[2].rdma_write(1, {&s, 1}, *key, 100, static_cast<uint32_t>(n) + 1, n);
    auto mine = c.take(2, 1);
    ASSERT_EQ(mine.size(), 1u);
    EXPECT_EQ(mine[0].status, OpStatus::ok) << c[2].last_error();
    auto theirs = c.take(1, 1);
    ASSERT_EQ(theirs.size(), 1u);
    EXPECT_EQ(theirs[0].type, OpType::remote_write);
    EXPECT_EQ(theirs[0].immediate, n + 1);
    EXPECT_EQ(theirs[0].bytes, n);
    EXPECT_EQ(theirs[0].peer, 2);
    EXPECT_EQ(std::memcmp(target.data() + 100, source.data(), n), 0);
  }
  key.reset();
  c.shutdown_all();
}

}  // namespace
}  // namespace evb::libfabric
