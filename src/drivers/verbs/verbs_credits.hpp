#pragma once
// The verbs driver's flow-control accounting, kept free of libibverbs so it
// can be tested without a device.
//
// SendQueue: the work requests in flight on one queue pair's send queue,
// bounded by its depth. Every user operation is signalled (each needs its
// own completion); internal sends (credit returns, notifies) go unsignalled
// up to `signal_interval` in a row. A reliable-connected send queue completes
// in order, so a signalled completion retires every unsignalled request
// posted before it. A full queue refuses the post: the driver holds the
// operation back (back-pressure) rather than overflowing the queue.
//
// SendCredits / CreditReturn: command credits. A rank keeps `credits`
// receive buffers posted for each peer, so the peer holds that many credits
// and spends one per command; the receiver counts the buffers it reposted
// and returns them in batches. Returned counts come from the peer and are
// checked: a peer that returns more than it could owe is a protocol error.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace evb::verbs {

class SendQueue {
 public:
  SendQueue(size_t depth, size_t signal_interval);

  size_t depth() const { return depth_; }
  size_t outstanding() const { return outstanding_; }
  bool full() const { return outstanding_ == depth_; }
  // Whether the next post must be signalled: a user operation, the
  // signal_interval-th unsignalled internal send, or the last free slot.
  bool must_signal(bool user_op) const;
  // Records a post (the caller checked !full() and used must_signal()).
  // Returns false and records nothing when the queue is full.
  bool post(uint64_t wr_id, bool signalled);
  // A signalled completion for `wr_id` arrived: retires it and the
  // unsignalled requests before it; their ids (oldest first, `wr_id` last)
  // are appended to `retired`. Returns false, retiring nothing, when
  // `wr_id` is not a signalled request in flight.
  bool complete(uint64_t wr_id, std::vector<uint64_t>& retired);
  // Retires everything (a queue pair gone to the error state); ids oldest first.
  void drain(std::vector<uint64_t>& retired);

 private:
  struct Entry {
    uint64_t wr_id;
    bool signalled;
  };
  size_t depth_;
  size_t signal_interval_;
  std::vector<Entry> ring_;  // depth_ entries
  size_t head_ = 0;          // oldest in flight
  size_t outstanding_ = 0;
  size_t unsignalled_run_ = 0;
};

class SendCredits {
 public:
  explicit SendCredits(size_t credits) : limit_(credits), available_(credits) {}
  size_t available() const { return available_; }
  // Spends one credit; false when none is left (hold the command back).
  bool take();
  // The peer returned `n` credits. False (nothing changes) when that would
  // exceed what it was given: the peer is not to be trusted any further.
  bool give_back(uint64_t n);

 private:
  size_t limit_;
  size_t available_;
};

class CreditReturn {
 public:
  // Returns credits once half of them (at least one) have been reposted.
  explicit CreditReturn(size_t credits) : batch_((credits + 1) / 2) {}
  void reposted() { ++pending_; }
  // The count to send back now, if a batch is due (and resets it).
  std::optional<size_t> due();
  // Forces the return of whatever is pending (at shutdown, or when the
  // sender may be waiting for exactly these).
  size_t flush();
  size_t pending() const { return pending_; }

 private:
  size_t batch_;
  size_t pending_ = 0;
};

}  // namespace evb::verbs
