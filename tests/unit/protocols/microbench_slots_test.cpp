// The receiving side of the point-to-point micro-benchmark with
// `receive_slots`: which arena slot each posted receive (data_path send) or
// credit (write) names, and which messages get their header checked. Unset,
// every message in flight has a slot of its own and every header is
// checked, as before; with fewer slots than messages in flight a slot holds
// several of them, a header is checked only when its message was alone in
// its slot, and a message overwritten before it could be checked is not
// counted corrupt (its length still is checked). Over a driver that only
// records posts; completions are handed to the agent directly.
#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <vector>

#include "microbench_agents.hpp"
#include "protocols/microbench/microbench_cookie.hpp"

namespace evb::micro {
namespace {

using test::one_way;
using test_support::RecordingDriver;

// BU 1 on rank 1 receiving from RU 0 (rank 0), as one-to-one with senders 1.
struct Receiver {
  explicit Receiver(const Config& config, bool write = false)
      : c(config),
        engine(driver, 1, c, PollMode::busy, {"rank 0", "rank 1"}),
        topo(make_topology(c)),
        arena(MicroAgent::arena_bytes(c, 1)),
        arena_reg(arena.data(), arena.size()),
        stats(test::one_step_stats(1)) {
    agent = std::make_unique<MicroAgent>(engine, topo, nullptr, nullptr, arena.data(), arena_reg, 1,
                                         write ? &windows : nullptr, stats);
    agent->begin_step(StepPlan{.step = 0, .targets = {}, .sources = {0}});
    agent->start(now_ns());
  }
  // The data receives posted so far, in order.
  std::vector<RecordingDriver::Recv> data_recvs() const {
    std::vector<RecordingDriver::Recv> out;
    for (const auto& r : driver.recvs)
      if (r.tag == bench_tag(0, BenchStream::data)) out.push_back(r);
    return out;
  }
  // The arena slot named by every credit sent so far, in order.
  std::vector<uint64_t> credits() const {
    std::vector<uint64_t> out;
    for (const Command& cmd : driver.commands)
      if (cmd.type == CommandType::bench && cmd.slot == static_cast<uint32_t>(BenchOp::credit))
        out.push_back(cmd.value);
    return out;
  }
  uint8_t* slot(size_t k) { return arena.data() + k * round64(c.fragment.size); }
  void write_header(uint8_t* at, uint32_t target) {
    BenchHeader h;
    h.source = 0;
    h.target = target;
    std::memcpy(at, &h, sizeof h);
  }
  // Completes data receive `r` with `bytes` (data_path send).
  void complete(const RecordingDriver::Recv& r, size_t bytes) {
    Completion done;
    done.type = OpType::recv;
    done.cookie = r.cookie;
    done.peer = 0;
    done.bytes = bytes;
    agent->on_completion(done);
  }
  // A write of `bytes` landed in arena slot `k` (data_path write).
  void landed(uint32_t k, size_t bytes) {
    Completion done;
    done.type = OpType::remote_write;
    done.peer = 0;
    done.bytes = bytes;
    done.immediate = k << 1;
    agent->on_completion(done);
  }
  void final_from_ru0(uint64_t exchanges) {
    agent->on_command(0, test::bench_cmd(BenchOp::final, 0, exchanges));
  }

  Config c;
  RecordingDriver driver;
  Engine engine;
  Topology topo;
  std::vector<uint8_t> arena;
  Registration arena_reg;
  std::vector<WriteTarget> windows;
  MicrobenchStats stats;
  std::unique_ptr<MicroAgent> agent;
};

TEST(MicrobenchSlots, UnsetEveryMessageHasItsSlotAndItsHeaderChecked) {
  Receiver r(one_way(4, 4096, 0));
  const auto posted = r.data_recvs();
  ASSERT_EQ(posted.size(), 4u);
  std::set<void*> buffers;
  for (const auto& p : posted) buffers.insert(p.buffer);
  EXPECT_EQ(buffers.size(), 4u);
  r.write_header(static_cast<uint8_t*>(posted[0].buffer), 1);
  r.complete(posted[0], 4096);
  r.write_header(static_cast<uint8_t*>(posted[1].buffer), 7);  // meant for BU 7: corrupt
  r.complete(posted[1], 4096);
  EXPECT_EQ(r.stats.integrity.corrupt, 1u);
  EXPECT_EQ(r.stats.headers_checked, 2u);
  EXPECT_EQ(r.stats.headers_unchecked, 0u);
  // Re-posted into the slot it freed, as before the key existed.
  EXPECT_EQ(r.data_recvs()[4].buffer, posted[0].buffer);
  EXPECT_EQ(r.data_recvs()[5].buffer, posted[1].buffer);
}

// At parallel 1, unset, the receiver holds two slots: it posts (send) or
// credits (write) both, every header is still checked, and the receives
// alternate between them.
TEST(MicrobenchSlots, UnsetAtWindowOneTwoSlotsEveryHeaderChecked) {
  Receiver r(one_way(1, 4096, 0));
  const auto posted = r.data_recvs();
  ASSERT_EQ(posted.size(), 2u);
  EXPECT_EQ(posted[0].buffer, r.slot(0));
  EXPECT_EQ(posted[1].buffer, r.slot(1));
  EXPECT_EQ(r.credits(), (std::vector<uint64_t>{0, 1}));
  r.write_header(r.slot(0), 1);
  r.complete(posted[0], 4096);
  r.write_header(r.slot(1), 7);  // meant for BU 7: corrupt
  r.complete(posted[1], 4096);
  EXPECT_EQ(r.stats.headers_checked, 2u);
  EXPECT_EQ(r.stats.headers_unchecked, 0u);
  EXPECT_EQ(r.stats.integrity.corrupt, 1u);
  const auto all = r.data_recvs();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[2].buffer, r.slot(0));
  EXPECT_EQ(all[3].buffer, r.slot(1));

  Receiver w(one_way(1, 4096, 0), true);
  EXPECT_EQ(w.credits(), (std::vector<uint64_t>{0, 1}));
  w.write_header(w.slot(0), 1);
  w.landed(0, 4096);
  EXPECT_EQ(w.credits(), (std::vector<uint64_t>{0, 1, 0}));
  EXPECT_EQ(w.stats.headers_checked, 1u);
}

TEST(MicrobenchSlots, OneSlotForManyInFlightChecksOnlyTheLoneMessage) {
  Receiver r(one_way(4, 4096, 1));
  const auto posted = r.data_recvs();
  ASSERT_EQ(posted.size(), 4u);
  for (const auto& p : posted) EXPECT_EQ(p.buffer, r.slot(0));
  // Another message's bytes under the first: not counted corrupt, not checked.
  r.write_header(r.slot(0), 7);
  r.complete(posted[0], 4096);
  EXPECT_EQ(r.stats.integrity.corrupt, 0u);
  EXPECT_EQ(r.stats.headers_unchecked, 1u);
  // Its length is still checked.
  r.complete(posted[1], 100);
  EXPECT_EQ(r.stats.integrity.corrupt, 1u);
  // After the final nothing is re-posted: the last message in flight is
  // alone in the slot, and its header is checked.
  r.final_from_ru0(6);
  const auto all = r.data_recvs();
  ASSERT_EQ(all.size(), 6u);
  r.write_header(r.slot(0), 1);
  for (size_t k = 2; k < all.size(); ++k) r.complete(all[k], 4096);
  EXPECT_EQ(r.stats.headers_unchecked, 5u);
  EXPECT_EQ(r.stats.headers_checked, 1u);
  EXPECT_EQ(r.stats.integrity.corrupt, 1u);
}

TEST(MicrobenchSlots, MoreSlotsThanInFlightRotateThroughAll) {
  Receiver r(one_way(2, 4096, 8));
  std::set<void*> used;
  for (size_t k = 0; k < 16; ++k) {
    const auto posted = r.data_recvs();
    const auto& next = posted[k];
    used.insert(next.buffer);
    r.write_header(static_cast<uint8_t*>(next.buffer), 1);
    r.complete(next, 4096);
  }
  EXPECT_EQ(used.size(), 8u);
  EXPECT_EQ(r.stats.headers_checked, 16u);
  EXPECT_EQ(r.stats.integrity.corrupt, 0u);
}

TEST(MicrobenchSlots, WritePathCreditsNameTheSharedSlot) {
  Receiver r(one_way(4, 4096, 1), true);
  EXPECT_TRUE(r.data_recvs().empty());  // writes: nothing posted
  EXPECT_EQ(r.credits(), (std::vector<uint64_t>{0, 0, 0, 0}));
  r.write_header(r.slot(0), 7);
  r.landed(0, 4096);  // three more credits name slot 0: not checked
  EXPECT_EQ(r.stats.integrity.corrupt, 0u);
  EXPECT_EQ(r.stats.headers_unchecked, 1u);
  EXPECT_EQ(r.credits().size(), 5u);
  EXPECT_EQ(r.credits().back(), 0u);
}

// More slots than the window: every slot is credited (the sender's window
// bounds what is in flight), and a landed slot is credited again.
TEST(MicrobenchSlots, WritePathMoreSlotsCreditEverySlot) {
  Receiver r(one_way(2, 4096, 4), true);
  EXPECT_EQ(r.credits(), (std::vector<uint64_t>{0, 1, 2, 3}));
  for (uint32_t k : {0u, 1u, 2u, 3u, 0u}) {
    r.write_header(r.slot(k), 1);
    r.landed(k, 4096);
  }
  EXPECT_EQ(r.credits(), (std::vector<uint64_t>{0, 1, 2, 3, 0, 1, 2, 3, 0}));
  EXPECT_EQ(r.stats.headers_checked, 5u);
  EXPECT_EQ(r.stats.integrity.corrupt, 0u);
}

// RU 0 on rank 0 with `credits` credits from BU 1: with more receive slots
// than `parallel`, the credits no longer bound what is in flight, the
// window does: one data write at a time at parallel 1, the next once the
// previous completed here, without waiting for a credit.
TEST(MicrobenchSlots, MoreSlotsThanTheWindowTheSenderKeepsItsWindow) {
  test::Sender sender(one_way(1, 4096, 4));
  for (uint64_t k = 0; k < 4; ++k) sender.credit(k);
  EXPECT_EQ(sender.data_sends().size(), 1u);  // four credits, a window of one
  Completion sent;
  sent.type = OpType::send;
  sent.cookie = Engine::make_cookie(1, cookie_of(kDataSendInline, 0, 0));
  sender.agent->on_completion(sent);
  // The next one went at once, on a credit already held.
  EXPECT_EQ(sender.data_sends().size(), 2u);
  EXPECT_EQ(sender.stats.fragments_sent, 1u);
}

// The sender's side of the same default: two credits at parallel 1, one
// message in flight, and the second sent as soon as the first completed
// here, on the credit already held (no credit round trip per message).
TEST(MicrobenchSlots, UnsetAtWindowOneTheNextMessageNeedsNoNewCredit) {
  test::Sender sender(one_way(1, 4096, 0));
  sender.credit(0);
  sender.credit(1);
  EXPECT_EQ(sender.data_sends().size(), 1u);
  Completion sent;
  sent.type = OpType::send;
  sent.cookie = Engine::make_cookie(1, cookie_of(kDataSendInline, 0, 0));
  sender.agent->on_completion(sent);
  EXPECT_EQ(sender.data_sends().size(), 2u);
}

}  // namespace
}  // namespace evb::micro
