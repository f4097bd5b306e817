// Contract item 7b: allocate_memory() gives registered memory of the size
// asked for that works as a receive buffer and, when the driver has
// rdma_write, as the target of a peer's write with an immediate (what the
// BU windows are).
#include <cstring>

#include "conformance_checks.hpp"

namespace evb::conformance {
namespace {

TEST_P(DriverContract, AllocatedMemoryReceivesAndIsAWriteTarget) {
  CONFORMANCE_RUN(2, [](Rank& r) {
    constexpr size_t kSize = 3 * 4096 + 100;  // not a whole number of pages
    constexpr size_t kMsg = 5000;
    constexpr uint64_t kWriteAt = 4096 + 3;
    constexpr uint32_t kImm = 0x0A110C8Du;
    constexpr Tag kMsgTag = 60;
    constexpr Tag kKeyTag = 61;
    const auto msg = pattern(kMsg, 91);
    const auto written = pattern(kMsg, 92);
    const bool rdma = r.caps().rdma_write;

    if (r.rank() == 0) {
      RegistrationPtr mem = r.driver().allocate_memory(kSize, PageSize::normal);
      ASSERT_TRUE(mem);
      ASSERT_NE(mem->base(), nullptr);
      EXPECT_GE(mem->size(), kSize);
      EXPECT_TRUE(mem->covers(mem->base(), kSize));
      std::memset(mem->base(), 0x5a, kSize);  // all of it is writable here
      r.driver().post_recv(1, kMsgTag, mem->base(), kMsg, mem.get(), 1);
      auto c = wait_for(r, 1, OpType::recv);
      ASSERT_TRUE(c);
      ASSERT_EQ(c->status, OpStatus::ok) << describe(*c);
      EXPECT_EQ(diff(mem->base(), msg.data(), kMsg), "") << "message received into it";
      if (rdma) {
        // The key goes out once the receive is done: the write overlaps the
        // received bytes, and a message still queued at the target (shared
        // memory) would land after a peer's put.
        EXPECT_FALSE(mem->packed_key().empty());
        Buffer& key = r.buffer(mem->packed_key().size());
        std::memcpy(key.data, mem->packed_key().data(), key.size);
        Segment s = key.segment(0, key.size);
        r.driver().post_send(1, kKeyTag, {&s, 1}, 2);
        ASSERT_TRUE(wait_for(r, 2, OpType::send));
        auto w = r.take_if([](const Completion& x) { return x.type == OpType::remote_write; });
        ASSERT_TRUE(w) << "no remote_write; last_error: " << r.driver().last_error();
        EXPECT_EQ(w->status, OpStatus::ok) << describe(*w);
        EXPECT_EQ(w->immediate, kImm) << describe(*w);
        EXPECT_EQ(w->bytes, kMsg) << describe(*w);
        EXPECT_EQ(diff(mem->base() + kWriteAt, written.data(), kMsg), "") << "written bytes";
        EXPECT_EQ(
            diff_fill(mem->base() + kWriteAt + kMsg, kSize - kWriteAt - kMsg, std::byte{0x5a}), "")
            << "bytes after the write";
      }
      r.barrier();  // the writer is done with the key before the memory goes
    } else if (r.rank() == 1) {
      Buffer& out = r.buffer(kMsg);
      std::memcpy(out.data, msg.data(), kMsg);
      Segment s = out.segment(0, kMsg);
      r.driver().post_send(0, kMsgTag, {&s, 1}, 1);
      ASSERT_TRUE(wait_for(r, 1, OpType::send));
      if (rdma) {
        const size_t key_max = std::max<size_t>(r.caps().packed_key_size, 1);
        Buffer& kb = r.buffer(key_max);
        r.driver().post_recv(0, kKeyTag, kb.data, key_max, kb.reg, 2);
        auto k = wait_for(r, 2, OpType::recv);
        ASSERT_TRUE(k);
        ASSERT_EQ(k->status, OpStatus::ok) << describe(*k);
        RemoteKeyPtr key = r.driver().unpack_key(0, {kb.data, k->bytes});
        ASSERT_TRUE(key);
        EXPECT_GE(key->size(), kSize);
        Buffer& src = r.buffer(kMsg);
        std::memcpy(src.data, written.data(), kMsg);
        Segment ws = src.segment(0, kMsg);
        r.driver().rdma_write(0, {&ws, 1}, *key, kWriteAt, kImm, 3);
        auto w = wait_for(r, 3, OpType::rdma_write);
        ASSERT_TRUE(w);
        EXPECT_EQ(w->status, OpStatus::ok) << describe(*w) << " " << r.driver().last_error();
      }
      r.barrier();
    } else {
      r.barrier();
    }
  });
}

}  // namespace
}  // namespace evb::conformance
