#pragma once
// The micro-benchmark agent tests' common parts (microbench_send_test.cpp,
// microbench_slots_test.cpp): a bench command as a peer would send it, a
// rank's statistics ready for one step, a one-way configuration, and RU 0 on rank 0 set up to send
// to BU 1 over a driver that only records posts.
#include <memory>
#include <vector>

#include "../support/recording_driver.hpp"
#include "core/clock.hpp"
#include "core/topology.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/microbench/microbench_agent.hpp"
#include "protocols/microbench/microbench_detail.hpp"

namespace evb::micro::test {

// One-to-one over 2 nodes, RU 0 -> BU 1 only, 4 KiB messages, an hour long.
inline Config one_way(int parallel, uint64_t ring, int receive_slots = 0) {
  Config c;
  c.protocol = "one-to-one";
  c.nodes = 2;
  c.senders = 1;
  c.parallel = parallel;
  c.receive_slots = receive_slots;
  c.fragment.size = 4096;
  c.ru_buffer = ring;
  c.duration_s = 3600;
  c.warmup_s = 0;
  return c;
}

// A bench command of step 0 between RU 0 and BU 1.
inline Command bench_cmd(BenchOp op, uint64_t value = 0, uint64_t bytes = 0) {
  Command cmd;
  cmd.type = CommandType::bench;
  cmd.slot = static_cast<uint32_t>(op);
  cmd.event_id = 0;
  cmd.count = 1;
  cmd.ru = 0;
  cmd.bu = 1;
  cmd.value = value;
  cmd.bytes = bytes;
  return cmd;
}

inline MicrobenchStats one_step_stats(int node) {
  MicrobenchStats stats;
  stats.ru = node;
  stats.bu = node;
  stats.step_bytes.assign(1, 0);
  stats.step_messages.assign(1, 0);
  stats.step_network_bytes.assign(1, 0);
  return stats;
}

// RU 0 on rank 0, its step started, sending to BU 1 (rank 1).
struct Sender {
  explicit Sender(const Config& config)
      : c(config),
        engine(driver, 0, c, PollMode::busy, {"rank 0", "rank 1"}),
        topo(make_topology(c)),
        pool(c.ru_buffer, data_message_size(c), 1, PageSize::normal),
        pool_reg(pool.data(), pool.size()),
        arena(MicroAgent::arena_bytes(c, 1)),
        arena_reg(arena.data(), arena.size()),
        stats(one_step_stats(0)) {
    agent = std::make_unique<MicroAgent>(engine, topo, &pool, &pool_reg, arena.data(), arena_reg, 1,
                                         nullptr, stats);
    agent->begin_step(StepPlan{.step = 0, .targets = {1}, .sources = {}});
    agent->start(now_ns());
  }
  // BU 1 credits slot `slot`.
  void credit(uint64_t slot) { agent->on_command(1, bench_cmd(BenchOp::credit, slot)); }
  // The segment count of every data send posted so far, in order.
  std::vector<size_t> data_sends() const {
    std::vector<size_t> out;
    for (size_t i = 0; i < driver.sends.size(); ++i)
      if (driver.sends[i] == 1 && driver.commands[i].type != CommandType::bench)
        out.push_back(driver.segment_counts[i]);
    return out;
  }

  Config c;
  test_support::RecordingDriver driver;
  Engine engine;
  Topology topo;
  DataPool pool;
  Registration pool_reg;
  std::vector<uint8_t> arena;
  Registration arena_reg;
  MicrobenchStats stats;
  std::unique_ptr<MicroAgent> agent;
};

}  // namespace evb::micro::test
