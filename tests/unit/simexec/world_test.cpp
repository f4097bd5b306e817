// The credit model's execution side without its network: ranks as fibers on
// a virtual clock (World), their collectives, and CreditDriver's matching,
// writes and completions, over a network that delivers every message after
// a fixed latency plus its length at one rate (TestNetwork).
#include "sim/exec/world.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>

#include "../support/fixed_rate_network.hpp"
#include "core/clock.hpp"
#include "core/error.hpp"
#include "sim/exec/credit_driver.hpp"
#include "sim/exec/sim_bootstrap.hpp"

namespace evb::simexec {
namespace {

using TestNetwork = test::FixedRateNetwork;

DriverContext context(int rank, int size) {
  DriverContext c;
  c.rank = rank;
  c.size = size;
  return c;
}

size_t drain(Driver& d, std::vector<Completion>& into) {
  Completion c[16];
  const size_t n = d.poll(std::span<Completion>(c, 16));
  into.insert(into.end(), c, c + n);
  return n;
}

// Waits (virtual time) until `d` has completed `count` operations.
std::vector<Completion> await(Driver& d, size_t count) {
  std::vector<Completion> got;
  while (got.size() < count) {
    if (drain(d, got) == 0) d.wait(std::chrono::microseconds(1000));
  }
  return got;
}

TEST(SimWorld, VirtualTimePassesOnlyWhereRanksWait) {
  TestNetwork net;
  World world({0, 1, 2}, net);
  std::vector<int64_t> woke(3);
  world.run(
      [&](int r) {
        EXPECT_EQ(now_ns(), 0);  // the world's clock while it runs
        world.block_until(1000 * (r + 1));
        woke[r] = now_ns();
      },
      64 * 1024);
  EXPECT_EQ(woke, (std::vector<int64_t>{1000, 2000, 3000}));
  EXPECT_EQ(sim_context(), nullptr);  // uninstalled once the run is over
}

TEST(SimWorld, CollectivesGiveEveryRankEveryContribution) {
  TestNetwork net;
  World world({0, 1, 2, 3, 4}, net);
  std::vector<std::vector<std::string>> all(5), gathered(5);
  world.run(
      [&](int r) {
        SimBootstrap b(world, r);
        all[r] = b.allgather("r" + std::to_string(r));
        b.barrier();
        gathered[r] = b.gather(std::to_string(r * r));
      },
      64 * 1024);
  for (int r = 0; r < 5; ++r)
    EXPECT_EQ(all[r], (std::vector<std::string>{"r0", "r1", "r2", "r3", "r4"}));
  EXPECT_EQ(gathered[0], (std::vector<std::string>{"0", "1", "4", "9", "16"}));
  EXPECT_TRUE(gathered[3].empty());
}

TEST(SimWorld, SendsMatchReceivesPostedBeforeOrAfterAndCompleteOnDelivery) {
  TestNetwork net;
  World world({0, 1}, net);
  std::vector<Completion> at0, at1;
  char early[64] = {}, late[64] = {}, small[8] = {};
  world.run(
      [&](int r) {
        CreditDriver d(world, context(r, 2));
        if (r == 1) {
          d.post_recv(0, 7, early, sizeof early, nullptr, 71);         // posted first
          d.post_recv(kAnyPeer, 9, small, sizeof small, nullptr, 91);  // too small
          at1 = await(d, 2);
          world.block_until(now_ns() + 10000);  // the third message arrives unexpected
          d.post_recv(0, 8, late, sizeof late, nullptr, 81);
          auto more = await(d, 1);
          at1.insert(at1.end(), more.begin(), more.end());
        } else {
          const char a[] = "first message", b[] = "second", c[] = "a longer message here";
          Segment s1{a, sizeof a, nullptr}, s2{b, sizeof b, nullptr}, s3{c, sizeof c, nullptr};
          d.post_send(1, 7, std::span<const Segment>(&s1, 1), 1);
          d.post_send(1, 8, std::span<const Segment>(&s2, 1), 2);
          d.post_send(1, 9, std::span<const Segment>(&s3, 1), 3);
          at0 = await(d, 3);
        }
      },
      256 * 1024);
  ASSERT_EQ(at1.size(), 3u);
  EXPECT_EQ(at1[0].cookie, 71u);
  EXPECT_STREQ(early, "first message");
  EXPECT_EQ(at1[1].cookie, 91u);
  EXPECT_EQ(at1[1].status, OpStatus::truncated);
  EXPECT_EQ(at1[1].bytes, sizeof("a longer message here"));
  EXPECT_EQ(at1[2].cookie, 81u);
  EXPECT_EQ(at1[2].peer, 0);
  EXPECT_STREQ(late, "second");
  ASSERT_EQ(at0.size(), 3u);
  for (const Completion& c : at0) EXPECT_EQ(c.type, OpType::send);
}

// A command batch (batch.events > 1) is longer than the head a data message
// keeps: a message on a command channel arrives whole, one on the data
// channel with only its head.
TEST(SimWorld, CommandsTravelWholeDataOnlyItsHead) {
  TestNetwork net;
  World world({0, 1}, net);
  const size_t length = 4 * kCopiedHead + 3;
  std::vector<std::byte> sent(length);
  for (size_t i = 0; i < length; ++i) sent[i] = static_cast<std::byte>(i % 251 + 1);
  std::vector<std::byte> command(length, std::byte{0}), data(length, std::byte{0});
  std::vector<Completion> got;
  world.run(
      [&](int r) {
        CreditDriver d(world, context(r, 2));
        if (r == 1) {
          d.post_recv(0, command_tag(Channel::to_evm), command.data(), length, nullptr, 1);
          d.post_recv(0, data_tag(5), data.data(), length, nullptr, 2);
          got = await(d, 2);
        } else {
          const Segment first{sent.data(), 100, nullptr};
          const Segment second{sent.data() + 100, length - 100, nullptr};
          const Segment both[] = {first, second};
          d.post_send(1, command_tag(Channel::to_evm), std::span<const Segment>(both, 2), 1);
          d.post_send(1, data_tag(5), std::span<const Segment>(both, 2), 2);
          await(d, 2);
        }
      },
      256 * 1024);
  ASSERT_EQ(got.size(), 2u);
  for (const Completion& c : got) {
    EXPECT_EQ(c.status, OpStatus::ok);
    EXPECT_EQ(c.bytes, length);
  }
  EXPECT_EQ(command, sent);
  EXPECT_TRUE(std::equal(sent.begin(), sent.begin() + kCopiedHead, data.begin()));
  EXPECT_EQ(data[kCopiedHead], std::byte{0});  // the payload is counted, not copied
  EXPECT_EQ(data[length - 1], std::byte{0});
}

TEST(SimWorld, WritesLandWithTheirImmediateAndOnlyTheHeadTravels) {
  TestNetwork net;
  World world({0, 1}, net);
  std::vector<std::byte> window(4096, std::byte{0});
  std::vector<std::byte> packed;
  std::vector<Completion> writer, target;
  int64_t landed_at = -1;
  world.run(
      [&](int r) {
        CreditDriver d(world, context(r, 2));
        SimBootstrap b(world, r);
        RegistrationPtr reg;
        if (r == 1) {
          reg = d.register_memory(window.data(), window.size());
          packed = reg->packed_key();
        }
        b.barrier();
        if (r == 0) {
          RemoteKeyPtr key = d.unpack_key(1, packed);
          std::vector<std::byte> data(1000, std::byte{0x5a});
          Segment s{data.data(), data.size(), nullptr};
          d.rdma_write(1, std::span<const Segment>(&s, 1), *key, 100, 42u, 5);
          writer = await(d, 1);
          EXPECT_THROW(d.rdma_write(1, std::span<const Segment>(&s, 1), *key, 3500, 1u, 6),
                       Error);  // past the end of the region
        } else {
          target = await(d, 1);
          landed_at = now_ns();
        }
        b.barrier();
      },
      256 * 1024);
  ASSERT_EQ(target.size(), 1u);
  EXPECT_EQ(target[0].type, OpType::remote_write);
  EXPECT_EQ(target[0].immediate, 42u);
  EXPECT_EQ(target[0].bytes, 1000u);
  EXPECT_EQ(target[0].peer, 0);
  EXPECT_EQ(landed_at, TestNetwork::kLatency + 1000);
  EXPECT_EQ(window[100], std::byte{0x5a});
  EXPECT_EQ(window[100 + kCopiedHead - 1], std::byte{0x5a});
  EXPECT_EQ(window[100 + kCopiedHead], std::byte{0});  // the payload is counted, not copied
  ASSERT_EQ(writer.size(), 1u);
  EXPECT_EQ(writer[0].type, OpType::rdma_write);
  EXPECT_EQ(writer[0].cookie, 5u);
}

TEST(SimWorld, PollingWithoutWaitingLetsTimePass) {
  TestNetwork net;
  World world({0, 1}, net);
  int64_t got_at = -1;
  world.run(
      [&](int r) {
        CreditDriver d(world, context(r, 2));
        if (r == 0) {
          char buf[8];
          d.post_recv(1, 1, buf, sizeof buf, nullptr, 1);
          std::vector<Completion> got;
          while (got.empty()) drain(d, got);  // never calls wait()
          got_at = now_ns();
        } else {
          world.block_until(50000);
          const char m[] = "late";
          Segment s{m, sizeof m, nullptr};
          d.post_send(0, 1, std::span<const Segment>(&s, 1), 1);
          await(d, 1);
        }
      },
      256 * 1024);
  EXPECT_GE(got_at, 50000 + TestNetwork::kLatency);
}

TEST(SimWorld, AStalledRunNamesTheWaitingRanks) {
  TestNetwork net;
  World world({0, 1, 2}, net);
  try {
    world.run(
        [&](int r) {
          if (r == 2) world.block_until(std::numeric_limits<int64_t>::max());
        },
        64 * 1024);
    FAIL() << "no stall reported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rank(s) 2 wait and nothing is in flight"),
              std::string::npos)
        << e.what();
  }
}

TEST(SimWorld, AlltoallExchangesWithEveryRank) {
  TestNetwork net;
  World world({0, 1, 2, 3}, net);
  std::vector<int64_t> done(4);
  world.run(
      [&](int r) {
        CreditDriver d(world, context(r, 4));
        std::vector<char> out(4 * 4096), in(4 * 4096, 0);
        for (int j = 0; j < 4; ++j)
          out[static_cast<size_t>(j) * 4096] = static_cast<char>(10 * r + j);
        d.alltoall(out.data(), in.data(), 4096);
        done[r] = now_ns();
        // Block j of `in` came from rank j, which put 10 j + r at the head of its block for r.
        for (int j = 0; j < 4; ++j) EXPECT_EQ(in[static_cast<size_t>(j) * 4096], 10 * j + r);
      },
      256 * 1024);
  // Three pairwise steps, each a message of 4096 bytes after the latency.
  for (int r = 0; r < 4; ++r) EXPECT_EQ(done[r], 3 * (TestNetwork::kLatency + 4096));
}

// Three 1000-byte fragments and a command from host 0 to host 1; the
// arrival time of each at rank 1, by cookie (data 1-3, the command 9).
std::map<uint64_t, int64_t> fragments_and_a_command(int64_t send_ns, int64_t receive_ns, bool set) {
  TestNetwork net;
  World world({0, 1}, net);
  if (set) world.set_fragment_cpu(send_ns, receive_ns);
  std::map<uint64_t, int64_t> at;
  world.run(
      [&](int r) {
        CreditDriver d(world, context(r, 2));
        std::vector<char> payload(1000, 'x');
        const Segment s{payload.data(), payload.size(), nullptr};
        if (r == 0) {
          for (uint64_t k = 1; k <= 3; ++k) d.post_send(1, data_tag(0), {&s, 1}, k);
          char cmd[64] = {};
          const Segment c{cmd, sizeof cmd, nullptr};
          d.post_send(1, command_tag(Channel::to_bu), {&c, 1}, 9);
          await(d, 4);
        } else {
          std::vector<std::vector<char>> into(4, std::vector<char>(1000));
          for (uint64_t k = 1; k <= 3; ++k)
            d.post_recv(0, data_tag(0), into[k].data(), 1000, nullptr, k);
          d.post_recv(0, command_tag(Channel::to_bu), into[0].data(), 64, nullptr, 9);
          while (at.size() < 4) {
            std::vector<Completion> got;
            if (drain(d, got) == 0) d.wait(std::chrono::microseconds(1000));
            for (const Completion& c : got) at[c.cookie] = now_ns();
          }
        }
      },
      256 * 1024);
  EXPECT_EQ(world.fragments_charged(), send_ns > 0 && receive_ns > 0 && set ? 6u : 0u);
  return at;
}

// A fragment takes its sender's host CPU before it leaves and its
// receiver's after it arrived; each host's fragments queue for its one CPU,
// so a cost above the wire time sets the pace. Commands are not charged,
// and a cost of 0 is the run without one.
TEST(SimWorld, FragmentsQueueForTheirHostsCpu) {
  const int64_t wire = TestNetwork::kLatency + 1000;  // a fragment's time in the network
  const auto none = fragments_and_a_command(0, 0, false);
  for (uint64_t k = 1; k <= 3; ++k) EXPECT_EQ(none.at(k), wire) << k;
  EXPECT_EQ(fragments_and_a_command(0, 0, true), none);  // 0 changes nothing
  const int64_t send = 5000, receive = 7000;             // both above the wire time
  const auto charged = fragments_and_a_command(send, receive, true);
  // The first leaves after its send cost, arrives after the wire time and
  // is handed over after its receive cost; the others leave one send cost
  // apart and then wait for host 1's CPU: one every receive cost.
  EXPECT_EQ(charged.at(1), send + wire + receive);
  EXPECT_EQ(charged.at(2), send + wire + 2 * receive);
  EXPECT_EQ(charged.at(3), send + wire + 3 * receive);
  EXPECT_EQ(charged.at(9), none.at(9));  // the command: not charged
}

}  // namespace
}  // namespace evb::simexec
