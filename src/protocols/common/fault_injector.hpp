#pragma once
// FaultInjector: the `faults:` entries that hit the units of one rank, played
// against the engine's clock. A kill SIGKILLs this process; a stall stops it
// (it sleeps, so it neither polls nor answers) for the entry's duration; a
// delay makes the engine hold each send, write and command of this rank for
// `by` before posting it, for the entry's duration. Times are seconds after
// the engine's t0 (the start of the data phase on this rank). A desync
// hands its event shift to the hook the RU of this rank set (on_desync).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/config.hpp"
#include "core/topology.hpp"

namespace evb {

// The rank hosting `unit` ("bu2", "ru0", "evm"), or -1 when there is none.
int rank_of_unit(const Topology& topo, const std::string& unit);

// When the kill of `faults:` hitting rank `rank` happens, in seconds after
// t0 (a stall listed before it delays it to the stall's end); -1: none.
double planned_kill_s(const Config& config, const Topology& topo, int rank);

class FaultInjector {
 public:
  FaultInjector(const Config& config, const Topology& topo, int rank);
  bool empty() const { return faults_.empty(); }
  // Plays every entry that is due at `now_ns` (t0_ns: the engine's start).
  // Kills and stalls happen inside this call; true after a stall. Entries
  // due by the end of a stall play right after it, before this rank polls
  // again (`[{at: 1s, stall: ru1, for: 300ms}, {at: 1s, kill: ru1}]` kills
  // RU 1 while BUs wait for its fragments).
  bool tick(int64_t now_ns, int64_t t0_ns, int rank);
  // The latency to add to a send posted at `now_ns` (0: none).
  int64_t send_delay_ns(int64_t now_ns) const { return now_ns < delay_until_ns_ ? delay_ns_ : 0; }
  // Earliest time tick() has something to do; -1: nothing left.
  int64_t next_ns(int64_t t0_ns) const;
  // What a desync entry does when it plays: shift the RU's events by its `by`.
  void on_desync(std::function<void(int64_t)> hook) { desync_ = std::move(hook); }

 private:
  struct Entry {
    FaultSpec spec;
    bool done = false;
  };
  std::vector<Entry> faults_;
  int64_t delay_until_ns_ = 0;
  int64_t delay_ns_ = 0;
  std::function<void(int64_t)> desync_;
};

}  // namespace evb
