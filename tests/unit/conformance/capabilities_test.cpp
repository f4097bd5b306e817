// Contract items of one-sided writes and capabilities: rdma_write with an
// immediate, refusal of what a driver lacks, sane capability values.
#include <cstring>
#include <iterator>
#include <utility>

#include "conformance_checks.hpp"
#include "core/error.hpp"

namespace evb::conformance {
namespace {

// 7. The target registers memory and sends its packed key; the writer
// unpacks it and writes a gathered pattern at an offset with an immediate.
// The target sees remote_write (immediate, length) and exactly those bytes;
// the writer sees rdma_write with its cookie. A write without immediate is
// in place once the writer's completion arrives. Writes past the key's end
// fail as completions and touch nothing.
TEST_P(DriverContract, RdmaWriteLandsWithImmediate) {
  CONFORMANCE_RUN(2, [](Rank& r) {
    if (!r.caps().rdma_write) {
      r.skip(
          "not applicable: the driver declares no rdma_write (Capabilities::rdma_write "
          "false; that such writes are refused is checked by MissingCapabilitiesAreRefused)");
      return;
    }
    EXPECT_GT(r.caps().packed_key_size, 0u);
    constexpr size_t kRegion = 65536;
    constexpr size_t kGuard = 4096;  // unregistered bytes either side of the region
    constexpr uint64_t kOffset = 4096 + 8;
    constexpr uint64_t kOffset2 = 20000;
    constexpr size_t kLen2 = 500;
    constexpr uint32_t kImm = 0xABCD1234u;
    constexpr Tag kKeyTag = 30;
    constexpr Tag kDoneTag = 31;
    const std::byte kFill{0x5a};
    const std::vector<size_t> seg_sizes = r.caps().max_segments >= 3
                                              ? std::vector<size_t>{1000, 24, 3000}
                                              : std::vector<size_t>{4024};
    const size_t len = 4024;
    const auto want = pattern(len, 77);
    const auto want2 = pattern(kLen2, 78);

    if (r.rank() == 0) {  // target
      Buffer& whole = r.buffer(kRegion + 2 * kGuard, kFill);
      RegistrationPtr region = r.driver().register_memory(whole.data + kGuard, kRegion);
      ASSERT_TRUE(region);
      const auto& key = region->packed_key();
      EXPECT_FALSE(key.empty()) << "rdma_write driver gave an empty packed_key()";
      EXPECT_LE(key.size(), r.caps().packed_key_size);
      Buffer& kb = r.buffer(key.size());
      std::memcpy(kb.data, key.data(), key.size());
      Buffer& done = r.buffer(16);
      r.driver().post_recv(1, kDoneTag, done.data, done.size, done.reg, 2);
      Segment s = kb.segment(0, key.size());
      r.driver().post_send(1, kKeyTag, {&s, 1}, 1);
      auto sent = wait_for(r, 1, OpType::send);
      auto c = r.take_if([](const Completion& x) { return x.type == OpType::remote_write; });
      if (!c)
        ADD_FAILURE() << "no remote_write completion; last_error: " << r.driver().last_error();
      if (c) {
        EXPECT_EQ(c->status, OpStatus::ok) << describe(*c);
        EXPECT_EQ(c->immediate, kImm) << describe(*c);
        EXPECT_EQ(c->bytes, len) << describe(*c);
        EXPECT_EQ(c->cookie, 0u) << describe(*c);
        EXPECT_TRUE(c->peer == 1 || c->peer == kAnyPeer) << describe(*c);
        std::byte* base = whole.data + kGuard;
        EXPECT_EQ(diff(base + kOffset, want.data(), len), "") << "written bytes";
        EXPECT_EQ(diff_fill(base, kOffset, kFill), "") << "bytes before the write";
      }
      // The writer's "done" comes after its immediate-less write completed.
      auto d = wait_for(r, 2, OpType::recv);
      ASSERT_TRUE(d);
      EXPECT_EQ(d->status, OpStatus::ok) << describe(*d);
      std::byte* base = whole.data + kGuard;
      EXPECT_EQ(diff(base + kOffset2, want2.data(), kLen2), "") << "write without immediate";
      EXPECT_EQ(diff_fill(base + kOffset + len, kOffset2 - kOffset - len, kFill), "")
          << "bytes between the writes";
      EXPECT_EQ(diff_fill(base + kOffset2 + kLen2, kRegion - kOffset2 - kLen2, kFill), "")
          << "bytes after the writes (a write past the end of the key landed?)";
      EXPECT_EQ(diff_fill(whole.data, kGuard, kFill), "") << "guard before the region";
      EXPECT_EQ(diff_fill(whole.data + kGuard + kRegion, kGuard, kFill), "")
          << "guard after the region: a refused write landed";
      (void)sent;
      r.barrier();  // the writer is done with the key before it is deregistered
      region.reset();
    } else if (r.rank() == 1) {  // writer
      const size_t key_max = std::max<size_t>(r.caps().packed_key_size, 1);
      Buffer& kb = r.buffer(key_max);
      r.driver().post_recv(0, kKeyTag, kb.data, key_max, kb.reg, 1);
      auto k = wait_for(r, 1, OpType::recv);
      ASSERT_TRUE(k);
      ASSERT_EQ(k->status, OpStatus::ok) << describe(*k);
      RemoteKeyPtr key;
      try {
        key = r.driver().unpack_key(0, {kb.data, k->bytes});
      } catch (const std::exception& e) {
        FAIL() << "unpack_key threw: " << e.what();
      }
      ASSERT_TRUE(key);
      EXPECT_EQ(key->peer(), 0);
      EXPECT_EQ(key->size(), kRegion);

      std::vector<Segment> segs;
      size_t off = 0;
      for (size_t n : seg_sizes) {
        Buffer& b = r.buffer(n + 8, std::byte{0x11});
        std::memcpy(b.data + 4, want.data() + off, n);
        segs.push_back(b.segment(4, n));
        off += n;
      }
      r.driver().rdma_write(0, segs, *key, kOffset, kImm, 50);
      auto w = wait_for(r, 50, OpType::rdma_write);
      ASSERT_TRUE(w);
      EXPECT_EQ(w->status, OpStatus::ok) << describe(*w) << " " << r.driver().last_error();
      EXPECT_EQ(w->peer, 0) << describe(*w);

      Buffer& b2 = r.buffer(kLen2);
      std::memcpy(b2.data, want2.data(), kLen2);
      Segment s2 = b2.segment(0, kLen2);
      r.driver().rdma_write(0, {&s2, 1}, *key, kOffset2, std::nullopt, 51);
      auto w2 = wait_for(r, 51, OpType::rdma_write);
      ASSERT_TRUE(w2);
      EXPECT_EQ(w2->status, OpStatus::ok) << describe(*w2) << " " << r.driver().last_error();

      // Past the end: straddling it, and starting at it.
      Buffer& junk = r.buffer(1000, std::byte{0x99});
      Segment sj = junk.segment(0, 1000);
      r.driver().rdma_write(0, {&sj, 1}, *key, key->size() - 100, kImm, 53);
      Segment sj1 = junk.segment(0, 1);
      r.driver().rdma_write(0, {&sj1, 1}, *key, key->size(), std::nullopt, 54);
      for (uint64_t cookie : {53u, 54u}) {
        auto e = wait_for(r, cookie, OpType::rdma_write);
        if (!e) continue;
        EXPECT_NE(e->status, OpStatus::ok) << "write past the end of the key: " << describe(*e);
      }

      Buffer& done = r.buffer(16);
      Segment sd = done.segment(0, 16);
      r.driver().post_send(0, kDoneTag, {&sd, 1}, 52);
      auto d = wait_for(r, 52, OpType::send);
      ASSERT_TRUE(d);
      EXPECT_EQ(d->status, OpStatus::ok) << describe(*d);
      r.barrier();
    } else {
      r.barrier();
    }
  });
}

// 8. What a driver lacks is refused loudly: require_capability throws a
// ConfigError naming the driver; the default rdma_write / unpack_key /
// alltoall throw evb::Error (never a silent no-op). A driver that has
// alltoall gets a real all-to-all checked.
TEST_P(DriverContract, MissingCapabilitiesAreRefused) {
  const std::string driver = GetParam().driver;
  CONFORMANCE_RUN(2, [driver](Rank& r) {
    Driver& d = r.driver();
    const Capabilities& caps = r.caps();
    const PeerId peer = r.rank() == 0 ? 1 : 0;
    if (!caps.rdma_write) {
      try {
        require_capability(d, caps.rdma_write, "rdma_write", "x");
        ADD_FAILURE() << "require_capability(rdma_write) did not throw";
      } catch (const ConfigError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find(driver), std::string::npos) << "does not name the driver: " << what;
        EXPECT_NE(what.find("rdma_write"), std::string::npos) << what;
      }
      std::byte local[8] = {};
      Segment s{local, sizeof local, nullptr};
      RemoteKey key(peer, 64);
      EXPECT_THROW(d.rdma_write(peer, {&s, 1}, key, 0, 1u, 77), Error)
          << "rdma_write without the capability must throw";
      std::byte packed[8] = {};
      EXPECT_THROW((void)d.unpack_key(peer, packed), Error);
      for (const auto& c : r.drain(milliseconds(50))) {
        ADD_FAILURE() << "completion from a refused rdma_write: " << describe(c);
      }
    } else {
      EXPECT_NO_THROW(require_capability(d, caps.rdma_write, "rdma_write", "x"));
    }
    if (!caps.alltoall) {
      std::byte a[8] = {}, b[8] = {};
      EXPECT_THROW(d.alltoall(a, b, 4), Error) << "alltoall without the capability must throw";
    } else {
      // Every rank of the run takes part.
      constexpr size_t kBlock = 8;
      const int n = r.size();
      std::vector<std::byte> send(kBlock * n), recv(kBlock * n, std::byte{0xee});
      for (int j = 0; j < n; ++j) {
        for (size_t i = 0; i < kBlock; ++i) {
          send[j * kBlock + i] = static_cast<std::byte>(r.rank() * 16 + j + i);
        }
      }
      d.alltoall(send.data(), recv.data(), kBlock);
      for (int j = 0; j < n; ++j) {
        for (size_t i = 0; i < kBlock; ++i) {
          EXPECT_EQ(recv[j * kBlock + i], static_cast<std::byte>(j * 16 + r.rank() + i))
              << "alltoall block from rank " << j;
        }
      }
    }
  });
}

// `after` (a started driver's) against `before` (its factory's query): a
// size at most the bound (0: none known), a flag only where the query allowed
// it; alltoall exactly.
void expect_within(const Capabilities& after, const Capabilities& before) {
  const auto within = [](size_t value, size_t bound) { return bound == 0 || value <= bound; };
  EXPECT_TRUE(within(after.max_segments, before.max_segments))
      << "max_segments " << after.max_segments << " > queried " << before.max_segments;
  EXPECT_TRUE(within(after.max_message, before.max_message))
      << "max_message " << after.max_message << " > queried " << before.max_message;
  EXPECT_TRUE(within(after.inline_size, before.inline_size))
      << "inline_size " << after.inline_size << " > queried " << before.inline_size;
  EXPECT_TRUE(within(after.packed_key_size, before.packed_key_size))
      << "packed_key_size " << after.packed_key_size << " > queried " << before.packed_key_size;
  EXPECT_LE(after.tag_bits, before.tag_bits);
  const std::pair<bool, bool> flags[] = {
      {after.rdma_write, before.rdma_write},
      {after.write_immediate, before.write_immediate},
      {after.write_preferred, before.write_preferred},
      {after.registration_required, before.registration_required},
      {after.ordered_per_peer, before.ordered_per_peer},
      {after.zero_copy_send, before.zero_copy_send},
      {after.can_block, before.can_block},
      {after.survives_peer_loss, before.survives_peer_loss}};
  const char* names[] = {
      "rdma_write",       "write_immediate", "write_preferred", "registration_required",
      "ordered_per_peer", "zero_copy_send",  "can_block",       "survives_peer_loss"};
  for (size_t i = 0; i < std::size(flags); ++i)
    EXPECT_TRUE(!flags[i].first || flags[i].second)
        << names[i] << " reported after start but not allowed by the query";
  EXPECT_EQ(after.alltoall, before.alltoall);
}

// 9. Capabilities are sane and max_segments is real: a send of exactly
// max_segments segments (capped at 1024) arrives whole. What the factory
// answered before start (DriverFactory::query, with the same options) is
// what the driver reports, or for what only the library knows, the most it
// can be (core/capabilities.hpp).
TEST_P(DriverContract, CapabilitiesAreSaneAndMaxSegmentsWork) {
  const DriverFactory* factory = registry().driver(GetParam().driver);
  ASSERT_TRUE(factory && factory->query) << GetParam().driver << " answers no query";
  const Capabilities before = factory->query(config_for(GetParam()));
  CONFORMANCE_RUN(2, [before](Rank& r) {
    const Capabilities& caps = r.caps();
    EXPECT_GE(caps.max_segments, 1u);
    EXPECT_GE(caps.tag_bits, 1);
    EXPECT_LE(caps.tag_bits, 32);
    EXPECT_GT(caps.max_message, 0u);
    if (caps.rdma_write) {
      EXPECT_GT(caps.packed_key_size, 0u);
    }
    if (caps.write_immediate) {
      EXPECT_TRUE(caps.rdma_write) << "write_immediate without rdma_write";
    }
    if (caps.write_preferred) {
      EXPECT_TRUE(caps.rdma_write) << "write_preferred without rdma_write";
    }
    expect_within(caps, before);
    EXPECT_FALSE(r.driver().name().empty());

    const size_t m = std::min<size_t>(caps.max_segments, 1024);
    auto seg_size = [](size_t j) { return 1 + j % 5; };
    size_t total = 0;
    for (size_t j = 0; j < m; ++j) total += seg_size(j);
    const auto want = pattern(total, 5);
    constexpr Tag kTag = 40;
    if (r.rank() == 0) {
      // Segments 8 bytes apart in one registered buffer (never contiguous).
      Buffer& b = r.buffer(8 * m, std::byte{0x33});
      std::vector<Segment> segs;
      size_t off = 0;
      for (size_t j = 0; j < m; ++j) {
        std::memcpy(b.data + 8 * j, want.data() + off, seg_size(j));
        segs.push_back(b.segment(8 * j, seg_size(j)));
        off += seg_size(j);
      }
      r.barrier();
      r.driver().post_send(1, kTag, segs, 9);
      auto c = wait_for(r, 9, OpType::send);
      ASSERT_TRUE(c);
      EXPECT_EQ(c->status, OpStatus::ok)
          << m << " segments: " << describe(*c) << " " << r.driver().last_error();
    } else if (r.rank() == 1) {
      Buffer& in = r.buffer(total + 64, std::byte{0xee});
      r.driver().post_recv(0, kTag, in.data, in.size, in.reg, 8);
      r.barrier();
      auto c = wait_for(r, 8, OpType::recv);
      ASSERT_TRUE(c);
      ASSERT_EQ(c->status, OpStatus::ok) << describe(*c) << " " << r.driver().last_error();
      ASSERT_EQ(c->bytes, total) << m << " segments";
      EXPECT_EQ(diff(in.data, want.data(), total), "") << m << " segments";
    } else {
      r.barrier();
    }
  });
}

// 9b. wait() sleeps until poll() may return something or its timeout
// passes: with nothing pending it returns; when a message arrives it returns
// long before its timeout. Drivers that cannot block return at once.
TEST_P(DriverContract, WaitHonoursItsTimeout) {
  CONFORMANCE_RUN(2, [](Rank& r) {
    using std::chrono::microseconds;
    Driver& d = r.driver();
    auto timed_wait = [&](microseconds t) {
      Guard g(r.who() + ": wait(" + std::to_string(t.count()) + " us)",
              std::chrono::duration_cast<milliseconds>(t) + milliseconds(5000));
      d.wait(t);
    };
    // With nothing pending, wait(2 ms) returns (a driver that sleeps on
    // regardless is caught by the Guard, 5 s later; no tighter bound, so a
    // loaded machine cannot fail it).
    for (int i = 0; i < 3; ++i) timed_wait(microseconds(2000));
    constexpr Tag kTag = 50;
    if (r.rank() == 0) {
      Buffer& b = r.buffer(64);
      r.barrier();
      Segment s = b.segment(0, 64);
      d.post_send(1, kTag, {&s, 1}, 1);
      auto c = wait_for(r, 1, OpType::send);
      ASSERT_TRUE(c);
      EXPECT_EQ(c->status, OpStatus::ok) << describe(*c);
    } else if (r.rank() == 1) {
      Buffer& b = r.buffer(64);
      d.post_recv(0, kTag, b.data, b.size, b.reg, 2);
      r.barrier();
      if (r.caps().can_block) {
        // wait(10 min) must end because the message arrives (it is sent
        // right after the barrier). The Guard only bounds a hang: a wait()
        // that sleeps on regardless ends the process with a [  HANG    ]
        // line naming this call, long before its 10 minutes.
        Guard g(r.who() + ": wait(10 min) with a message on its way (must return when it arrives)",
                milliseconds(30000));
        d.wait(std::chrono::minutes(10));
      }
      auto c = wait_for(r, 2, OpType::recv);
      ASSERT_TRUE(c);
      EXPECT_EQ(c->status, OpStatus::ok) << describe(*c);
    } else {
      r.barrier();
    }
  });
}

}  // namespace
}  // namespace evb::conformance
