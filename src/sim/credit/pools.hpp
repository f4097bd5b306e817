#pragma once
// Index-based storage for what moves through the credit model: messages and
// their chunks live in pools of slots reused through a free list, and every
// queue (a queue pair's messages, a link's chunks on the wire, an input
// buffer) is a singly linked FIFO threaded through the slots' `next` field.
// Once a pool has grown to the most items ever in flight, nothing allocates.
#include <cstdint>
#include <vector>

namespace evb::simnet {

inline constexpr uint32_t kNone = UINT32_MAX;

// A message handed to a source NIC and not yet delivered.
struct Message {
  uint64_t id = 0;
  uint64_t left = 0;      // bytes not yet cut into chunks
  uint32_t next = kNone;  // next message of its queue pair
  int src = -1;
  int dst = -1;
  uint32_t lane = 0;   // the connection of the (src, dst) pair it travels on
  uint64_t bytes = 0;  // its whole length
  uint8_t vl = 0;      // the virtual lane its chunks take
};

// A piece of a message between its source NIC and its destination. `hop`
// points into the platform's route (Platform::route_begin): the link the
// chunk is on, or has last arrived over.
struct Chunk {
  const int* hop = nullptr;
  uint64_t bytes = 0;
  uint32_t message = kNone;
  uint32_t next = kNone;  // next chunk of whichever queue holds this one
  bool last = false;      // the message's last chunk
  uint8_t vl = 0;         // its message's virtual lane
};

// Slots of T (which has a `next` field) with a free list threaded through
// the free slots. The pool owns the slots; indices stay valid until release.
template <class T>
class Pool {
 public:
  uint32_t acquire() {
    if (free_ == kNone) {
      items_.emplace_back();
      return static_cast<uint32_t>(items_.size() - 1);
    }
    const uint32_t i = free_;
    free_ = items_[i].next;
    items_[i] = T{};
    return i;
  }
  void release(uint32_t i) {
    items_[i].next = free_;
    free_ = i;
  }
  T& operator[](uint32_t i) { return items_[i]; }
  const T& operator[](uint32_t i) const { return items_[i]; }

 private:
  std::vector<T> items_;
  uint32_t free_ = kNone;
};

// A FIFO of pool slots linked through their `next` field; it owns nothing.
struct Queue {
  uint32_t head = kNone;
  uint32_t tail = kNone;

  bool empty() const { return head == kNone; }
  template <class T>
  void push(Pool<T>& pool, uint32_t i) {
    pool[i].next = kNone;
    if (tail == kNone)
      head = i;
    else
      pool[tail].next = i;
    tail = i;
  }
  template <class T>
  uint32_t pop(Pool<T>& pool) {
    const uint32_t i = head;
    head = pool[i].next;
    if (head == kNone) tail = kNone;
    return i;
  }
};

}  // namespace evb::simnet
