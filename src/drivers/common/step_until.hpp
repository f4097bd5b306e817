#pragma once
// step_until: the set-up and teardown loop of a driver that progresses by
// polling (wait for hellos, for goodbyes to be delivered): one step of its
// progress, then the test, until the test holds or the deadline passes.
#include <chrono>

namespace evb {

// Returns done(): false when the deadline passed first.
template <class Step, class Done>
bool step_until(Step step, Done done, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    step();
    if (done()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

}  // namespace evb
