// How the micro-benchmark's sender hands messages to the driver: with one
// reused buffer (ru_buffer = one message) and several messages in flight,
// as ucx_perftest and fi_rma_bw send, every message still leaves as one
// contiguous segment of that buffer. A gathered send (header + payload)
// took UCX off its zero-copy rendezvous at window 32 (issue 38). Over a
// driver that only records posts.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../support/recording_driver.hpp"
#include "core/clock.hpp"
#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/microbench/microbench_agent.hpp"
#include "protocols/microbench/microbench_detail.hpp"

namespace evb::micro {
namespace {

using test_support::RecordingDriver;

Config one_way(int parallel, uint64_t ring) {
  Config c;
  c.protocol = "one-to-one";
  c.nodes = 2;
  c.senders = 1;
  c.parallel = parallel;
  c.fragment.size = 4096;
  c.ru_buffer = ring;
  c.duration_s = 3600;
  c.warmup_s = 0;
  return c;
}

// RU 0 on rank 0 gets `credits` credits from BU 1 and sends; returns the
// segment count of every data send it posted, in order.
std::vector<size_t> data_sends(const Config& c, int credits) {
  RecordingDriver driver;
  Engine engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1"});
  const Topology topo = make_topology(c);
  DataPool pool(c.ru_buffer, data_message_size(c), 1, PageSize::normal);
  Registration pool_reg(pool.data(), pool.size());
  std::vector<uint8_t> arena(MicroAgent::arena_bytes(c, 1));
  Registration arena_reg(arena.data(), arena.size());
  MicrobenchStats stats;
  stats.ru = 0;
  stats.bu = 0;
  stats.step_bytes.assign(1, 0);
  stats.step_messages.assign(1, 0);
  stats.step_network_bytes.assign(1, 0);
  MicroAgent agent(engine, topo, &pool, &pool_reg, arena.data(), arena_reg, 1, nullptr, stats);
  agent.begin_step(StepPlan{.step = 0, .targets = {1}, .sources = {}});
  agent.start(now_ns());
  const size_t before = driver.sends.size();
  for (int i = 0; i < credits; ++i) {
    Command credit;
    credit.type = CommandType::bench;
    credit.slot = static_cast<uint32_t>(BenchOp::credit);
    credit.event_id = 0;
    credit.count = 1;
    credit.ru = 0;
    credit.bu = 1;
    credit.value = static_cast<uint64_t>(i);
    agent.on_command(1, credit);
  }
  std::vector<size_t> out;
  for (size_t i = before; i < driver.sends.size(); ++i)
    if (driver.sends[i] == 1 && driver.commands[i].type != CommandType::bench)
      out.push_back(driver.segment_counts[i]);
  return out;
}

TEST(MicrobenchSend, OneBufferManyInFlightSendsItWhole) {
  const Config c = one_way(8, 4096);  // one message's ring, 8 in flight
  const std::vector<size_t> sends = data_sends(c, 8);
  ASSERT_EQ(sends.size(), 8u);
  for (size_t n : sends) EXPECT_EQ(n, 1u) << "a gathered send";
}

TEST(MicrobenchSend, ARingStillRotates) {
  const Config c = one_way(4, 4 * 4096);  // four slots, four in flight: all free
  const std::vector<size_t> sends = data_sends(c, 4);
  ASSERT_EQ(sends.size(), 4u);
  for (size_t n : sends) EXPECT_EQ(n, 1u);
}

}  // namespace
}  // namespace evb::micro
