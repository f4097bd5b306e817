// The MPI_Alltoall baseline: every rank loops the driver's alltoall()
// collective, `fragment.size` bytes to and from every rank per call. All
// ranks must call it equally often, so rank 0 decides, batch by batch through
// the bootstrap, whether to warm up, measure or stop and how many calls the
// next batch has (about 50 ms of work, never beyond the phase's end).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/clock.hpp"
#include "core/error.hpp"
#include "core/rng.hpp"
#include "protocols/microbench/microbench_detail.hpp"

namespace evb::micro {
namespace {

enum class Phase { warmup = 0, measure = 1, stop = 2 };

struct Decision {
  Phase phase = Phase::stop;
  uint64_t calls = 0;
};

// Rank 0's view after a batch; the others' `mine` is ignored.
Decision agree(Bootstrap& boot, const Decision& mine) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%d %llu", static_cast<int>(mine.phase),
                static_cast<unsigned long long>(mine.calls));
  const std::vector<std::string> all = boot.allgather(buf);
  Decision d;
  int phase = 2;
  unsigned long long calls = 0;
  if (all.empty() || std::sscanf(all[0].c_str(), "%d %llu", &phase, &calls) != 2)
    throw Error("alltoall: malformed batch decision from rank 0");
  d.phase = static_cast<Phase>(phase);
  d.calls = calls;
  return d;
}

}  // namespace

uint64_t run_alltoall(Driver& driver, Bootstrap& boot, const Topology& topo, const Config& c,
                      MicrobenchStats& stats) {
  require_capability(driver, driver.capabilities().alltoall, "alltoall", "protocol alltoall");
  if (c.layout != Layout::rubu || topo.nprocs != topo.nodes || topo.evm_rank >= 0)
    throw ConfigError("protocol alltoall needs layout rubu (one rank per node, no EVM)");
  const int n = boot.size();
  const int me = boot.rank();
  const uint64_t block = data_message_size(c);
  stats.bu = topo.ranks.at(me).node;
  stats.ru = stats.bu;
  DataPool pool(c.ru_buffer, block * n, mix(c.seed, 0xA2A, static_cast<uint64_t>(me)), c.page_size);
  AlignedBuffer recv(block * n, c.page_size);
  const RegistrationPtr send_region = driver.register_memory(pool.data(), pool.size());
  const RegistrationPtr recv_region = driver.register_memory(recv.data(), recv.size());

  boot.barrier();  // every rank's pool is filled: the clocks start together
  const int64_t t0 = now_ns();
  const int64_t warmup_end = t0 + s_to_ns(c.warmup_s);
  const int64_t end = t0 + s_to_ns(c.duration_s);
  const double batch_target_s = 0.05;
  uint64_t iteration = 0;
  uint64_t measured_calls = 0;
  uint64_t measured_bytes = 0;
  int64_t measured_ns = 0;
  double per_call_s = 0;  // rank 0's estimate
  Decision d{c.warmup_s > 0 ? Phase::warmup : Phase::measure, 1};
  d = agree(boot, d);
  while (d.phase != Phase::stop) {
    const int64_t begin = now_ns();
    for (uint64_t i = 0; i < d.calls; ++i, ++iteration) {
      uint8_t* send = pool.take(block * n);
      for (int j = 0; j < n; ++j) {
        BenchHeader h;
        h.source = static_cast<uint32_t>(me);
        h.target = static_cast<uint32_t>(j);
        h.sequence = iteration;
        std::memcpy(send + j * block, &h, sizeof h);
      }
      driver.alltoall(send, recv.data(), block);
      for (int j = 0; j < n; ++j) {
        BenchHeader h;
        std::memcpy(&h, recv.data() + j * block, sizeof h);
        if (h.magic != kBenchMagic || h.source != static_cast<uint32_t>(j) ||
            h.target != static_cast<uint32_t>(me) || h.sequence != iteration)
          ++stats.integrity.corrupt;
      }
    }
    const int64_t finish = now_ns();
    // Every block counts, the rank's own included, as the event builder
    // counts a node's own fragment (docs/METRICS.md).
    const uint64_t received = d.calls * static_cast<uint64_t>(n);
    stats.events_built += received;
    stats.fragments_sent += received;
    stats.bytes_sent += received * block;
    stats.bytes_total += received * block;
    stats.network_bytes_total += (received - d.calls) * block;  // all but the own block
    if (d.phase == Phase::measure) {
      measured_calls += d.calls;
      measured_bytes += received * block;
      measured_ns += finish - begin;
    }
    Decision next;
    if (me == 0) {
      per_call_s = ns_to_s(finish - begin) / static_cast<double>(std::max<uint64_t>(1, d.calls));
      const int64_t now = now_ns();
      next.phase = now < warmup_end                     ? Phase::warmup
                   : (now < end || measured_calls == 0) ? Phase::measure
                                                        : Phase::stop;
      const int64_t phase_end = next.phase == Phase::warmup ? warmup_end : end;
      const double left_s = std::max(0.0, ns_to_s(phase_end - now));
      const double budget = std::min(batch_target_s, left_s);
      next.calls = per_call_s > 0 ? static_cast<uint64_t>(budget / per_call_s) : 1;
      next.calls = std::clamp<uint64_t>(next.calls, 1, 1u << 20);
    }
    d = agree(boot, next);
  }
  stats.step_bytes.assign(1, measured_bytes);
  stats.step_messages.assign(1, measured_calls * static_cast<uint64_t>(n));
  stats.step_network_bytes.assign(1, measured_calls * static_cast<uint64_t>(n - 1) * block);
  stats.step_window_s.assign(1, ns_to_s(measured_ns));
  return anon_huge_bytes();  // the buffers are still held
}

}  // namespace evb::micro
