#include "protocols/common/fault_injector.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "core/clock.hpp"

namespace evb {

int rank_of_unit(const Topology& topo, const std::string& unit) {
  if (unit == "evm") return topo.evm_rank;
  if (unit.size() < 3) return -1;
  const int index = std::atoi(unit.c_str() + 2);
  const std::vector<int>& ranks = unit[0] == 'r' ? topo.ru_rank : topo.bu_rank;
  if (index < 0 || index >= static_cast<int>(ranks.size())) return -1;
  return ranks[index];
}

double planned_kill_s(const Config& config, const Topology& topo, int rank) {
  double clock = 0;  // when this rank's injector is free again (after stalls)
  for (const FaultSpec& f : config.faults) {
    if (rank_of_unit(topo, f.unit) != rank) continue;
    const double at = std::max(clock, f.at_s);
    if (f.kind == FaultSpec::Kind::kill) return at;
    if (f.kind == FaultSpec::Kind::stall) clock = at + f.for_s;
  }
  return -1;
}

FaultInjector::FaultInjector(const Config& config, const Topology& topo, int rank) {
  for (const FaultSpec& f : config.faults)
    if (rank_of_unit(topo, f.unit) == rank) faults_.push_back({f, false});
}

int64_t FaultInjector::next_ns(int64_t t0) const {
  int64_t t = -1;
  for (const Entry& e : faults_)
    if (!e.done) {
      const int64_t at = t0 + s_to_ns(e.spec.at_s);
      t = t < 0 ? at : std::min(t, at);
    }
  return t;
}

bool FaultInjector::tick(int64_t now, int64_t t0, int rank) {
  // Entries are played in list order.
  bool stalled = false;
  for (Entry& e : faults_) {
    if (e.done || now < t0 + s_to_ns(e.spec.at_s)) continue;
    e.done = true;
    const FaultSpec& f = e.spec;
    std::fprintf(stderr, "evbench: rank %d: fault injection at %.3f s: %s %s\n", rank,
                 ns_to_s(now - t0), to_string(f.kind), f.unit.c_str());
    switch (f.kind) {
      case FaultSpec::Kind::kill:
        std::fflush(nullptr);
        ::kill(::getpid(), SIGKILL);
        ::pause();
        break;
      case FaultSpec::Kind::stall: {
        const int64_t ns = s_to_ns(f.for_s);
        timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
        while (::nanosleep(&ts, &ts) != 0) {
        }
        stalled = true;
        now = now_ns();  // entries due by the end of the stall play now, in list order
        break;
      }
      case FaultSpec::Kind::delay:
        delay_ns_ = s_to_ns(f.by_s);
        delay_until_ns_ = now + s_to_ns(f.for_s);
        break;
      case FaultSpec::Kind::desync:
        if (desync_) desync_(f.by_events);
        break;
      case FaultSpec::Kind::corrupt:  // BUs inject it on arrival, not a rank
        break;
    }
  }
  return stalled;
}

}  // namespace evb
