#include "drivers/verbs/verbs_credits.hpp"

#include "core/error.hpp"

namespace evb::verbs {

SendQueue::SendQueue(size_t depth, size_t signal_interval)
    : depth_(depth), signal_interval_(signal_interval) {
  if (depth == 0 || signal_interval == 0 || signal_interval > depth)
    throw Error("verbs: send queue depth " + std::to_string(depth) + " with signal interval " +
                std::to_string(signal_interval));
  ring_.resize(depth);
}

bool SendQueue::must_signal(bool user_op) const {
  return user_op || unsignalled_run_ + 1 >= signal_interval_ || outstanding_ + 1 == depth_;
}

bool SendQueue::post(uint64_t wr_id, bool signalled) {
  if (full()) return false;
  ring_[(head_ + outstanding_) % depth_] = Entry{wr_id, signalled};
  ++outstanding_;
  unsignalled_run_ = signalled ? 0 : unsignalled_run_ + 1;
  return true;
}

bool SendQueue::complete(uint64_t wr_id, std::vector<uint64_t>& retired) {
  size_t n = 0;
  for (; n < outstanding_; ++n) {
    const Entry& e = ring_[(head_ + n) % depth_];
    if (e.wr_id == wr_id && e.signalled) break;
  }
  if (n == outstanding_) return false;
  for (size_t i = 0; i <= n; ++i) retired.push_back(ring_[(head_ + i) % depth_].wr_id);
  head_ = (head_ + n + 1) % depth_;
  outstanding_ -= n + 1;
  if (outstanding_ == 0) unsignalled_run_ = 0;
  return true;
}

void SendQueue::drain(std::vector<uint64_t>& retired) {
  for (size_t i = 0; i < outstanding_; ++i) retired.push_back(ring_[(head_ + i) % depth_].wr_id);
  head_ = 0;
  outstanding_ = 0;
  unsignalled_run_ = 0;
}

bool SendCredits::take() {
  if (available_ == 0) return false;
  --available_;
  return true;
}

bool SendCredits::give_back(uint64_t n) {
  if (n > limit_ - available_) return false;
  available_ += static_cast<size_t>(n);
  return true;
}

std::optional<size_t> CreditReturn::due() {
  if (pending_ < batch_) return std::nullopt;
  return flush();
}

size_t CreditReturn::flush() {
  const size_t n = pending_;
  pending_ = 0;
  return n;
}

}  // namespace evb::verbs
