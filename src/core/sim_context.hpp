#pragma once
// SimContext: a simulation that runs the ranks of a run on this thread, each
// a fiber on one virtual clock (`evbench sim --model credit`, src/sim/exec).
// While one is installed, now_ns() (core/clock.hpp) answers its virtual time,
// so the units, protocols and agents measure simulated time with the code
// they run for real. Null on every thread of an ordinary run: the one
// branch is all it costs there.
#include <cstdint>

namespace evb {

class SimContext {
 public:
  virtual ~SimContext() = default;
  virtual int64_t now_ns() const = 0;  // the virtual clock (CLOCK_MONOTONIC-like, ns)
};

// This thread's simulation, or null.
inline SimContext*& sim_context() {
  thread_local SimContext* current = nullptr;
  return current;
}

// Installs `sim` on this thread for its lifetime (the simulation's scope).
class ScopedSimContext {
 public:
  explicit ScopedSimContext(SimContext* sim) : previous_(sim_context()) { sim_context() = sim; }
  ~ScopedSimContext() { sim_context() = previous_; }
  ScopedSimContext(const ScopedSimContext&) = delete;
  ScopedSimContext& operator=(const ScopedSimContext&) = delete;

 private:
  SimContext* previous_;
};

}  // namespace evb
