#pragma once
// Fiber: one simulated rank's execution context (ucontext), so that the
// ranks of `evbench sim --model credit` run their real, blocking-style code
// (the worker, the engine's loop, the bootstrap's collectives) one at a
// time on one thread. The scheduler resume()s a fiber; the fiber runs until
// it calls suspend() (the driver's wait, a collective) or its body returns.
// Its stack is mapped lazily (only touched pages cost memory) with a guard
// page below it. An exception must not leave the body: the body catches
// what it throws.
#include <ucontext.h>

#include <cstddef>
#include <functional>

namespace evb::simexec {

class Fiber {
 public:
  Fiber(std::function<void()> body, size_t stack_bytes);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // From the scheduler: runs the fiber until it suspends or finishes.
  void resume();
  // From inside the fiber: back to the scheduler.
  void suspend();
  bool finished() const { return finished_; }

 private:
  static void trampoline(unsigned hi, unsigned lo);

  std::function<void()> body_;
  void* stack_ = nullptr;  // the mapping (guard page first)
  size_t mapped_ = 0;
  ucontext_t context_{};
  ucontext_t caller_{};
  bool finished_ = false;
  bool running_ = false;
  // AddressSanitizer's view of the stack switch (no-ops without it).
  void* fake_stack_ = nullptr;
  const void* caller_bottom_ = nullptr;
  size_t caller_size_ = 0;
};

}  // namespace evb::simexec
