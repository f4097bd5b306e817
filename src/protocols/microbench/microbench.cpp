#include "protocols/microbench/microbench.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "core/sim_context.hpp"
#include "protocols/common/engine.hpp"
#include "protocols/common/windows.hpp"
#include "protocols/microbench/microbench_agent.hpp"
#include "protocols/microbench/microbench_detail.hpp"

namespace evb {
namespace micro {

DataPool::DataPool(uint64_t bytes, uint64_t min_bytes, uint64_t seed, PageSize pages)
    : buffer_(size_for(bytes, min_bytes), pages) {
  // A simulation counts payload bytes and moves none (core/sim_context.hpp):
  // the pool stays unwritten, so its pages are never mapped (512 ranks of
  // the alltoall baseline at 512 KiB blocks filled 24 GB before).
  if (sim_context()) return;
  Rng rng(seed);
  uint8_t* p = buffer_.data();
  for (size_t i = 0; i + 8 <= buffer_.size(); i += 8) {
    const uint64_t v = rng.next();
    std::memcpy(p + i, &v, 8);
  }
}

uint8_t* DataPool::take(uint64_t n) {
  if (offset_ + n > buffer_.size()) offset_ = 0;
  uint8_t* p = buffer_.data() + offset_;
  offset_ = (offset_ + n + 63) & ~uint64_t{63};
  return p;
}

namespace {

// The shift of each step: every shift 0..n-1 for a one-to-one scan, else one step.
std::vector<int> step_shifts(const Config& c) {
  std::vector<int> shifts;
  if (pattern_of(c) == Pattern::one_to_one && c.shift_scan) {
    for (int s = 0; s < c.nodes; ++s) shifts.push_back(s);
  } else {
    shifts.push_back(c.shift % c.nodes);
  }
  return shifts;
}

// The BUs RU `ru` sends to in one step, in visiting order (none for an RU
// at or past `senders`, when set).
std::vector<int> targets_of(const Config& c, int ru, int shift) {
  const int n = c.nodes;
  if (c.senders > 0 && ru >= c.senders) return {};
  switch (pattern_of(c)) {
    case micro::Pattern::one_to_one:
      return {(ru + shift) % n};
    case micro::Pattern::many_to_one:
      return {0};
    default: {  // gather*: barrel order starting at the RU's own index
      std::vector<int> t;
      for (int k = 0; k < n; ++k) t.push_back((ru + k) % n);
      return t;
    }
  }
}

}  // namespace

// What plan_step's sources come to at most over the steps, from targets_of:
// one-to-one sends each RU to one BU per step, a different one per RU;
// many-to-one every RU to BU 0; the gathers every RU to every BU.
size_t max_sources_of(const Config& c, int bu) {
  if (bu < 0) return 0;
  switch (pattern_of(c)) {
    case micro::Pattern::one_to_one:
      return 1;
    case micro::Pattern::many_to_one:
      return bu == 0 ? static_cast<size_t>(c.nodes) : 0;
    default:
      return static_cast<size_t>(c.nodes);
  }
}

namespace {

micro::StepPlan plan_step(const Config& c, const RankRoles& me, int step, int shift) {
  micro::StepPlan p;
  p.step = step;
  if (me.ru >= 0) p.targets = targets_of(c, me.ru, shift);
  if (me.bu >= 0)
    for (int ru = 0; ru < c.nodes; ++ru) {
      const std::vector<int> t = targets_of(c, ru, shift);
      if (std::find(t.begin(), t.end(), me.bu) != t.end()) p.sources.push_back(ru);
    }
  return p;
}

uint64_t run_point_to_point(Driver& driver, Bootstrap& boot, const Topology& topo, const Config& c,
                            PollMode mode, const std::vector<std::string>& peer_names,
                            MicrobenchStats& stats, bool live) {
  const RankRoles& me = topo.ranks.at(boot.rank());
  const std::vector<int> shifts = step_shifts(c);
  std::vector<micro::StepPlan> plans;
  size_t max_sources = 0;
  for (size_t k = 0; k < shifts.size(); ++k) {
    plans.push_back(plan_step(c, me, static_cast<int>(k), shifts[k]));
    max_sources = std::max(max_sources, plans.back().sources.size());
  }
  std::unique_ptr<micro::DataPool> pool;
  if (me.ru >= 0)
    pool = std::make_unique<micro::DataPool>(
        c.ru_buffer, micro::data_message_size(c) + micro::meta_message_size(c),
        mix(c.seed, 0xBE7C, static_cast<uint64_t>(me.ru)), c.page_size);
  // The receive arena: registered for receives, or (data_path write) the
  // driver's allocation peers write into, advertised to every RU.
  const bool write = c.data_path == DataPath::write;
  const size_t arena_bytes = micro::MicroAgent::arena_bytes(c, max_sources);
  std::optional<AlignedBuffer> arena_buffer;
  RegistrationPtr arena_reg;
  if (write) {
    arena_reg = driver.allocate_memory(arena_bytes, c.page_size);
  } else {
    arena_buffer.emplace(arena_bytes, c.page_size);
    arena_reg = driver.register_memory(arena_buffer->data(), arena_buffer->size());
  }
  uint8_t* arena = reinterpret_cast<uint8_t*>(arena_reg->base());
  const RegistrationPtr pool_reg =
      pool ? driver.register_memory(pool->data(), pool->size()) : nullptr;
  std::vector<WriteTarget> windows;
  if (write) windows = exchange_windows(boot, driver, topo, me.bu >= 0 ? arena_reg.get() : nullptr);

  // One Engine and one agent for all steps (see microbench_agent.hpp).
  Engine engine(driver, boot.rank(), c, mode, peer_names);
  micro::MicroAgent agent(engine, topo, pool.get(), pool_reg.get(), arena, *arena_reg, max_sources,
                          write ? &windows : nullptr, stats);
  stats.step_bytes.assign(plans.size(), 0);
  stats.step_messages.assign(plans.size(), 0);
  stats.step_network_bytes.assign(plans.size(), 0);
  stats.step_window_s.assign(plans.size(), c.duration_s - c.warmup_s);
  const int64_t t0 = now_ns();
  for (size_t k = 0; k < plans.size(); ++k) {
    // Every step starts together, the first one too: the set-up above (an
    // RU's data pool is filled, ru_buffer bytes) runs after the run's start
    // barrier, and only RU ranks do it. Without this barrier a receiver of
    // layout split started its window while the RUs were still filling, and
    // under load missed the whole traffic (a window with 0 bytes).
    boot.barrier();
    // Under the credit model (a SimContext), a scan's shift 0 is not run:
    // every node sends to itself through the engine's loopback, whose copy
    // costs no virtual time, so the step would never reach its deadline.
    // The report leaves it out of a simulated scan anyway (docs/SCALE.md).
    if (sim_context() && shifts[k] == 0 && plans.size() > 1) continue;
    // A scan has no live rate line: rank 0 says which step starts and
    // about how long is left (each step lasts `duration`).
    if (live && boot.rank() == 0 && plans.size() > 1)
      std::fprintf(stderr, "# t=%6.1f s  step %zu of %zu (shift %d), about %.0f s left\n",
                   ns_to_s(now_ns() - t0), k + 1, plans.size(), shifts[k],
                   static_cast<double>(plans.size() - k) * c.duration_s);
    agent.begin_step(plans[k]);
    engine.run();
  }
  return anon_huge_bytes();  // the buffers are still held
}

}  // namespace
}  // namespace micro

uint64_t run_microbench(Driver& driver, Bootstrap& boot, const Topology& topo, const Config& config,
                        PollMode mode, const std::vector<std::string>& peer_names,
                        MicrobenchStats& stats, bool live) {
  const RankRoles& me = topo.ranks.at(boot.rank());
  stats.ru = me.ru;
  stats.bu = me.bu;
  if (micro::pattern_of(config) == micro::Pattern::alltoall)
    return micro::run_alltoall(driver, boot, topo, config, stats);
  return micro::run_point_to_point(driver, boot, topo, config, mode, peer_names, stats, live);
}

}  // namespace evb
