#pragma once
// The credit model's clock: pending events as a binary heap of (time,
// sequence) with a small integer payload. Events at one time run in the
// order they were scheduled, so a run depends only on its inputs. Entries are
// 16 bytes (the sequence number and the payload share one word); the heap
// holds about two events per link, so it stays in cache.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/error.hpp"

namespace evb::simnet {

class EventQueue {
 public:
  // Payloads are below `payloads`.
  explicit EventQueue(uint32_t payloads)
      : shift_(std::bit_width(payloads)), mask_((uint64_t{1} << shift_) - 1) {}

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  int64_t top_time() const { return heap_.front().time; }

  void push(int64_t time, uint32_t payload) {
    const uint64_t key = (seq_++ << shift_) | payload;
    if (seq_ >> (64 - shift_)) throw Error("simnet: event sequence numbers exhausted");
    size_t hole = heap_.size();
    heap_.emplace_back();
    while (hole > 0) {
      const size_t parent = (hole - 1) / 2;
      if (!before(time, key, heap_[parent])) break;
      heap_[hole] = heap_[parent];
      hole = parent;
    }
    heap_[hole] = Entry{time, key};
  }

  // Removes the earliest event; returns its payload and sets `time`.
  uint32_t pop(int64_t& time) {
    time = heap_.front().time;
    const uint32_t payload = static_cast<uint32_t>(heap_.front().key & mask_);
    const Entry moved = heap_.back();
    heap_.pop_back();
    const size_t n = heap_.size();
    if (n == 0) return payload;
    size_t hole = 0;
    for (;;) {
      size_t child = 2 * hole + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1].time, heap_[child + 1].key, heap_[child]))
        ++child;
      if (!before(heap_[child].time, heap_[child].key, moved)) break;
      heap_[hole] = heap_[child];
      hole = child;
    }
    heap_[hole] = moved;
    return payload;
  }

 private:
  struct Entry {
    int64_t time;
    uint64_t key;  // sequence << shift_ | payload
  };
  static bool before(int64_t time, uint64_t key, const Entry& e) {
    return time < e.time || (time == e.time && key < e.key);
  }

  std::vector<Entry> heap_;
  uint64_t seq_ = 0;
  int shift_;
  uint64_t mask_;
};

}  // namespace evb::simnet
