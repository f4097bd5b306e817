// The receiving side of the point-to-point micro-benchmark with
// `receive_slots`: which arena slot each posted receive (data_path send) or
// credit (write) names, and which messages get their header checked. Unset,
// every message in flight has a slot of its own and every header is
// checked, as before; with fewer slots than messages in flight a slot holds
// several of them, a header is checked only when its message was alone in
// its slot, and a message overwritten before it could be checked is not
// counted corrupt (its length still is checked). The credits (MicrobenchCredits):
// freed slots go back several to a credit, the sender refuses more credits
// than circulate, and a sender and receiver pumped against each other never
// stall and keep the window full. Over a driver that only records posts;
// completions are handed to the agent directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include "core/error.hpp"
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
  // The credit commands sent so far, in order.
  std::vector<Command> credit_commands() const {
    std::vector<Command> out;
    for (const Command& cmd : driver.commands)
      if (cmd.type == CommandType::bench && cmd.slot == static_cast<uint32_t>(BenchOp::credit))
        out.push_back(cmd);
    return out;
  }
  // The arena slot named by every credit sent so far, in order: a credit of
  // `count` names `value` and the slots after it, wrapping within the
  // source's slots.
  std::vector<uint64_t> credits() const {
    const uint32_t slots = receive_slots_of(c);
    std::vector<uint64_t> out;
    for (const Command& cmd : credit_commands())
      for (uint32_t i = 0; i < cmd.count; ++i)
        out.push_back(cmd.value / slots * slots + (cmd.value % slots + i) % slots);
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

// Unset at parallel 4 the receiver holds 4 + 2 slots (half the window more,
// for credits held back: microbench_credits_test.cpp).
TEST(MicrobenchSlots, UnsetEveryMessageHasItsSlotAndItsHeaderChecked) {
  Receiver r(one_way(4, 4096, 0));
  const auto posted = r.data_recvs();
  ASSERT_EQ(posted.size(), 6u);
  std::set<void*> buffers;
  for (const auto& p : posted) buffers.insert(p.buffer);
  EXPECT_EQ(buffers.size(), 6u);
  r.write_header(static_cast<uint8_t*>(posted[0].buffer), 1);
  r.complete(posted[0], 4096);
  r.write_header(static_cast<uint8_t*>(posted[1].buffer), 7);  // meant for BU 7: corrupt
  r.complete(posted[1], 4096);
  EXPECT_EQ(r.stats.integrity.corrupt, 1u);
  EXPECT_EQ(r.stats.headers_checked, 2u);
  EXPECT_EQ(r.stats.headers_unchecked, 0u);
  // Re-posted into the slot it freed, as before the key existed.
  EXPECT_EQ(r.data_recvs()[6].buffer, posted[0].buffer);
  EXPECT_EQ(r.data_recvs()[7].buffer, posted[1].buffer);
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

// Unset at parallel 1 over shared memory (the driver's
// Capabilities::shared_memory_path, copied by resolve): one slot, posted
// (send) or credited (write) again once its message was checked; every
// header checked. Only unset and only at parallel 1.
TEST(MicrobenchSlots, UnsetAtWindowOneOverSharedMemoryOneSlotEveryHeaderChecked) {
  Config c = one_way(1, 4096, 0);
  c.shared_memory_path = true;
  EXPECT_EQ(receive_slots_of(c), 1u);
  EXPECT_FALSE(shares_slots(c));
  EXPECT_EQ(credit_tickets_of(c), 1u);
  EXPECT_EQ(credit_batch_of(c), 1u);
  Receiver r(c);
  ASSERT_EQ(r.data_recvs().size(), 1u);
  EXPECT_EQ(r.data_recvs()[0].buffer, r.slot(0));
  r.write_header(r.slot(0), 1);
  r.complete(r.data_recvs()[0], 4096);
  ASSERT_EQ(r.data_recvs().size(), 2u);
  EXPECT_EQ(r.data_recvs()[1].buffer, r.slot(0));
  EXPECT_EQ(r.stats.headers_checked, 1u);
  EXPECT_EQ(r.stats.headers_unchecked, 0u);

  Receiver w(c, true);
  EXPECT_EQ(w.credits(), (std::vector<uint64_t>{0}));
  w.write_header(w.slot(0), 1);
  w.landed(0, 4096);
  EXPECT_EQ(w.credits(), (std::vector<uint64_t>{0, 0}));
  EXPECT_EQ(w.stats.headers_checked, 1u);

  Config wider = one_way(4, 4096, 0);
  wider.shared_memory_path = true;
  EXPECT_EQ(receive_slots_of(wider), 6u);
  Config set = one_way(1, 4096, 2);
  set.shared_memory_path = true;
  EXPECT_EQ(receive_slots_of(set), 2u);
}

// Unset at parallel 1 where each message sent moves by a read rendezvous
// (the driver's Capabilities::read_rendezvous_above, copied by resolve):
// one slot, every header checked; only for sends, only for messages above
// the bound, only unset and only at parallel 1.
TEST(MicrobenchSlots, UnsetAtWindowOneOverAReadRendezvousOneSlotForSendsAboveTheBound) {
  Config c = one_way(1, 4096, 0);
  c.data_path = DataPath::send;
  c.read_rendezvous_above = 2048;
  EXPECT_STREQ(one_slot_reason(c), "read rendezvous");
  EXPECT_EQ(receive_slots_of(c), 1u);
  EXPECT_EQ(credit_tickets_of(c), 1u);
  Receiver r(c);
  ASSERT_EQ(r.data_recvs().size(), 1u);
  r.write_header(r.slot(0), 1);
  r.complete(r.data_recvs()[0], 4096);
  ASSERT_EQ(r.data_recvs().size(), 2u);
  EXPECT_EQ(r.data_recvs()[1].buffer, r.slot(0));
  EXPECT_EQ(r.stats.headers_checked, 1u);

  Config at_bound = c;
  at_bound.read_rendezvous_above = 4096;  // 4096-byte messages go eagerly
  EXPECT_EQ(receive_slots_of(at_bound), 2u);
  Config writes = c;
  writes.data_path = DataPath::write;  // no rendezvous on the write path
  EXPECT_EQ(receive_slots_of(writes), 2u);
  Config wider = c;
  wider.parallel = 4;
  EXPECT_EQ(receive_slots_of(wider), 6u);
  Config set = one_way(1, 4096, 2);
  set.data_path = DataPath::send;
  set.read_rendezvous_above = 2048;
  EXPECT_EQ(receive_slots_of(set), 2u);
  Config none = one_way(1, 4096, 0);
  none.data_path = DataPath::send;
  EXPECT_STREQ(one_slot_reason(none), "");
  EXPECT_EQ(receive_slots_of(none), 2u);
}

// One slot, 4 in flight: 4 + 2 receives posted into it (the credits of the
// window and half of it more).
TEST(MicrobenchSlots, OneSlotForManyInFlightChecksOnlyTheLoneMessage) {
  Receiver r(one_way(4, 4096, 1));
  const auto posted = r.data_recvs();
  ASSERT_EQ(posted.size(), 6u);
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
  r.final_from_ru0(8);
  const auto all = r.data_recvs();
  ASSERT_EQ(all.size(), 8u);
  r.write_header(r.slot(0), 1);
  for (size_t k = 2; k < all.size(); ++k) r.complete(all[k], 4096);
  EXPECT_EQ(r.stats.headers_unchecked, 7u);
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
  EXPECT_EQ(r.credits(), (std::vector<uint64_t>{0, 0, 0, 0, 0, 0}));
  r.write_header(r.slot(0), 7);
  r.landed(0, 4096);  // five more credits name slot 0: not checked
  EXPECT_EQ(r.stats.integrity.corrupt, 0u);
  EXPECT_EQ(r.stats.headers_unchecked, 1u);
  EXPECT_EQ(r.credits().size(), 7u);
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

namespace evb::micro {
namespace {

using test::one_way;

// Credits (docs/MICROBENCH.md "One credit for several slots"): the receiver holds half the
// window more credits than the window and returns freed slots several to a
// credit, half of those extra at a time: at parallel 32, 48 slots and one
// credit per 8 messages where there was one per message.
TEST(MicrobenchCredits, SendPathReturnsEightSlotsToACreditAtWindow32) {
  Receiver r(one_way(32, 4096, 0));
  ASSERT_EQ(credit_batch_of(r.c), 8u);
  ASSERT_EQ(r.data_recvs().size(), 48u);
  ASSERT_EQ(r.credit_commands().size(), 1u);  // every slot at once
  EXPECT_EQ(r.credit_commands()[0].count, 48u);
  for (size_t k = 0; k < 64; ++k) {
    const auto next = r.data_recvs()[k];
    r.write_header(static_cast<uint8_t*>(next.buffer), 1);
    r.complete(next, 4096);
    EXPECT_EQ(r.data_recvs().size(), 49 + k) << "re-posted at once, before its credit";
  }
  const auto cmds = r.credit_commands();
  ASSERT_EQ(cmds.size(), 1u + 64 / 8);
  for (size_t i = 1; i < cmds.size(); ++i) EXPECT_EQ(cmds[i].count, 8u);
  EXPECT_EQ(r.stats.headers_checked, 64u);
  EXPECT_EQ(r.stats.headers_unchecked, 0u);
  EXPECT_EQ(r.stats.integrity.corrupt, 0u);
}

// Write path: a credit names a run of slots (the first, and the count after
// it); a slot freed out of that order sends the run held so far first.
TEST(MicrobenchCredits, WritePathCreditNamesARunOfSlots) {
  Receiver w(one_way(8, 4096, 0), true);
  ASSERT_EQ(receive_slots_of(w.c), 12u);
  ASSERT_EQ(credit_batch_of(w.c), 2u);
  std::vector<uint64_t> expected;
  for (uint64_t k = 0; k < 12; ++k) expected.push_back(k);
  for (uint32_t n = 0; n < 16; ++n) {
    const uint32_t k = n % 12;
    w.write_header(w.slot(k), 1);
    w.landed(k, 4096);
    expected.push_back(k);
  }
  EXPECT_EQ(w.credits(), expected);
  EXPECT_EQ(w.credit_commands().size(), 1u + 8);
  w.write_header(w.slot(5), 1);
  w.landed(5, 4096);
  w.write_header(w.slot(4), 1);
  w.landed(4, 4096);  // not 6: slot 5 goes alone
  EXPECT_EQ(w.credit_commands().back().value, 5u);
  EXPECT_EQ(w.credit_commands().back().count, 1u);
  EXPECT_EQ(w.stats.headers_checked, 18u);
  EXPECT_EQ(w.stats.integrity.corrupt, 0u);
}

// Held credits are not sent once the source's final came, and the ack
// announces only the credits sent (what the sender waits for).
TEST(MicrobenchCredits, TheAckCountsOnlyTheCreditsSent) {
  Receiver r(one_way(8, 4096, 0));
  const auto first = r.data_recvs()[0];
  r.write_header(static_cast<uint8_t*>(first.buffer), 1);
  r.complete(first, 4096);  // one freed slot held (a credit per 2)
  r.final_from_ru0(1);
  EXPECT_EQ(r.credits().size(), 12u);
  const Command& ack = r.driver.commands.back();
  ASSERT_EQ(ack.slot, static_cast<uint32_t>(BenchOp::ack));
  EXPECT_EQ(ack.bytes, 12u);
}

// The sender holds at most the credits in circulation (2 at parallel 1):
// a credit that would give it more, or none, is a hostile peer's, refused.
TEST(MicrobenchCredits, SenderRefusesACreditBeyondTheCreditsInCirculation) {
  test::Sender sender(one_way(1, 4096, 0));
  sender.credit(0);  // sent at once: 1 in flight, 0 held
  Command two = test::bench_cmd(BenchOp::credit, 1);
  two.count = 2;
  sender.agent->on_command(1, two);  // 2 held: as many as circulate
  EXPECT_THROW(sender.credit(0), PeerError);
  Command none = test::bench_cmd(BenchOp::credit, 1);
  none.count = 0;
  EXPECT_THROW(sender.agent->on_command(1, none), PeerError);
}

// The writer's side: a credit of `count` from `value` names that slot and
// the ones after it, wrapping within the source's slots, and the writer
// writes them in that order; a run past the arena the BU advertised is a
// hostile peer's, refused.
TEST(MicrobenchCredits, WriterWritesTheRunACreditNames) {
  const Config c = one_way(1, 4096, 4);  // 4 slots, window 1
  test_support::RecordingDriver driver;
  driver.caps.rdma_write = true;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1"});
  const Topology topo = make_topology(c);
  DataPool pool(c.ru_buffer, data_message_size(c), 1, PageSize::normal);
  Registration pool_reg(pool.data(), pool.size());
  std::vector<uint8_t> arena(MicroAgent::arena_bytes(c, 1));
  Registration arena_reg(arena.data(), arena.size());
  std::vector<WriteTarget> windows(2);
  windows[1].peer = 1;
  windows[1].size = MicroAgent::arena_bytes(c, 1);  // BU 1's arena: 4 slots of one source
  windows[1].key = std::make_unique<RemoteKey>(1, windows[1].size);
  MicrobenchStats stats = test::one_step_stats(0);
  MicroAgent agent(engine, topo, &pool, &pool_reg, arena.data(), arena_reg, 1, &windows, stats);
  agent.begin_step(StepPlan{.step = 0, .targets = {1}, .sources = {}});
  agent.start(now_ns());
  Command run = test::bench_cmd(BenchOp::credit, 2);
  run.count = 4;
  agent.on_command(1, run);
  for (int k = 0; k < 3; ++k) {
    Completion sent;
    sent.type = OpType::rdma_write;
    sent.cookie = driver.writes.back().cookie;
    agent.on_completion(sent);
  }
  std::vector<uint32_t> slots;
  for (const auto& w : driver.writes) slots.push_back(*w.immediate >> 1);
  EXPECT_EQ(slots, (std::vector<uint32_t>{2, 3, 0, 1}));
  EXPECT_EQ(driver.writes[1].offset, 3 * round64(4096));
  Command past = test::bench_cmd(BenchOp::credit, 4);  // slot 4 of a 4-slot arena
  EXPECT_THROW(agent.on_command(1, past), PeerError);
}

// Sender and receiver over a pump that delivers each credit one data message
// late (a credit's latency), data in order into the oldest posted receive:
// the run never stalls, no message finds no receive posted, every header is
// checked, and the sender always has its whole window in flight.
struct PumpResult {
  size_t credit_messages = 0;
  size_t min_in_flight = SIZE_MAX;
};
PumpResult pump(const Config& c, size_t messages) {
  test::Sender s(c);
  Receiver r(c);
  PumpResult out;
  size_t credits_seen = 0, sends_seen = 0, next_recv = 0, in_flight = 0;
  std::vector<Command> lagging;
  const auto collect_credits = [&] {
    for (; credits_seen < r.driver.commands.size(); ++credits_seen) {
      const Command& cmd = r.driver.commands[credits_seen];
      if (cmd.type == CommandType::bench && cmd.slot == static_cast<uint32_t>(BenchOp::credit)) {
        lagging.push_back(cmd);
        ++out.credit_messages;
      }
    }
  };
  const auto count_sends = [&] {
    for (; sends_seen < s.driver.sends.size(); ++sends_seen)
      if (s.driver.commands[sends_seen].type != CommandType::bench) ++in_flight;
  };
  collect_credits();
  for (size_t delivered = 0; delivered < messages;) {
    for (const Command& cmd : lagging) s.agent->on_command(1, cmd);
    lagging.clear();
    count_sends();
    if (in_flight == 0) {
      ADD_FAILURE() << "stalled after " << delivered << " messages";
      break;
    }
    const auto recvs = r.data_recvs();
    if (next_recv >= recvs.size()) {
      ADD_FAILURE() << "message " << delivered << " found no receive posted";
      break;
    }
    r.write_header(static_cast<uint8_t*>(recvs[next_recv].buffer), 1);
    r.complete(recvs[next_recv++], 4096);
    ++delivered;
    collect_credits();  // delivered only after the next message: their latency
    // The message completes at the sender, which sends the next one at once
    // if it holds a credit: its window stays full.
    Completion sent;
    sent.type = OpType::send;
    sent.cookie = Engine::make_cookie(1, cookie_of(kDataSendInline, 0, 0));
    --in_flight;
    s.agent->on_completion(sent);
    count_sends();
    out.min_in_flight = std::min(out.min_in_flight, in_flight);
  }
  EXPECT_EQ(r.stats.integrity.corrupt, 0u);
  EXPECT_EQ(r.stats.headers_unchecked + r.stats.headers_checked, messages);
  return out;
}

TEST(MicrobenchCredits, PumpedNeverStallsAndKeepsTheWindowFull) {
  for (int window : {1, 2, 3, 32}) {
    SCOPED_TRACE("parallel " + std::to_string(window));
    const PumpResult p = pump(one_way(window, 4096, 0), 200);
    EXPECT_EQ(p.min_in_flight, static_cast<size_t>(window));
    const size_t batch = credit_batch_of(one_way(window, 4096, 0));
    EXPECT_LE(p.credit_messages, 1 + 200 / batch);
  }
  // One shared slot (the tools' one buffer), and more slots than the window.
  for (int slots : {1, 64}) {
    SCOPED_TRACE("parallel 32, receive_slots " + std::to_string(slots));
    const PumpResult p = pump(one_way(32, 4096, slots), 200);
    EXPECT_EQ(p.min_in_flight, 32u);
    EXPECT_LE(p.credit_messages, 1 + 200 / credit_batch_of(one_way(32, 4096, slots)));
  }
}

}  // namespace
}  // namespace evb::micro
