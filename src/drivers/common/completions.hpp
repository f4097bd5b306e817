#pragma once
// Completions: the ready queue every driver keeps, and its last error.
//
// Finished operations wait here until poll() drains them, in the order they
// were queued. The text of the last failure lives here too, kept one way for
// every driver: a failure given with a reason records it (Driver::last_error()),
// one given without keeps the previous reason. Drivers with a software tag
// matcher hand it queue(), so matched receives land in the same queue.
#include <cstddef>
#include <span>
#include <string>

#include "core/ring_queue.hpp"
#include "drivers/api/driver.hpp"

namespace evb {

class Completions {
 public:
  void push(const Completion& c) { ready_.push_back(c); }
  // An operation failed where it was posted, or was given up: its one
  // completion, and `why` (when not empty) as the last error.
  void fail(OpType type, PeerId peer, Tag tag, uint64_t cookie, OpStatus status,
            const std::string& why, size_t bytes = 0);
  // The one peer_event of a peer that closed or was lost.
  void peer_event(PeerId peer, OpStatus status);
  // A peer's write with immediate landed here.
  void remote_write(PeerId peer, size_t bytes, uint32_t immediate);

  // Records `why` as the last error (an empty one changes nothing).
  void note(const std::string& why) {
    if (!why.empty()) last_error_ = why;
  }
  void forget_error() { last_error_.clear(); }
  const std::string& last_error() const { return last_error_; }

  // Moves up to out.size() completions into `out`; returns how many. Inline:
  // every poll() of every driver ends here.
  size_t drain(std::span<Completion> out) {
    size_t n = 0;
    while (n < out.size() && !ready_.empty()) {
      out[n++] = ready_.front();
      ready_.pop_front();
    }
    return n;
  }
  bool empty() const { return ready_.empty(); }
  size_t size() const { return ready_.size(); }
  void clear() { ready_.clear(); }
  RingQueue<Completion>& queue() { return ready_; }

 private:
  RingQueue<Completion> ready_;
  std::string last_error_;
};

}  // namespace evb
