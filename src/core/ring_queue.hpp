#pragma once
// RingQueue: a FIFO on a power-of-two ring that doubles when full and never
// shrinks, so a data path allocates nothing per element once the queue has
// reached the depth the run needs (std::deque allocates and frees a block
// every few elements as it moves along). push_slot() hands out the next slot
// with whatever it held before, so elements that own buffers (a vector of
// segments) keep their capacity from one use to the next.
#include <cstddef>
#include <utility>
#include <vector>

namespace evb {

template <class T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }

  T& front() { return slots_[head_]; }
  const T& front() const { return slots_[head_]; }
  T& back() { return (*this)[size_ - 1]; }
  T& operator[](size_t i) { return slots_[(head_ + i) & (slots_.size() - 1)]; }
  const T& operator[](size_t i) const { return slots_[(head_ + i) & (slots_.size() - 1)]; }

  void push_back(T value) { push_slot() = std::move(value); }
  // Appends a slot and returns it holding its previous contents: the caller
  // assigns every field it uses.
  T& push_slot() {
    if (size_ == slots_.size()) grow();
    ++size_;
    return back();
  }
  // The slot keeps its contents (and their capacity) until pushed again.
  void pop_front() {
    head_ = (head_ + 1) & (slots_.size() - 1);
    --size_;
  }
  void clear() {
    head_ = 0;
    size_ = 0;
  }

  template <class Q, class V>
  class Iter {
   public:
    Iter(Q* q, size_t i) : q_(q), i_(i) {}
    V& operator*() const { return (*q_)[i_]; }
    V* operator->() const { return &(*q_)[i_]; }
    Iter& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const Iter& o) const { return i_ == o.i_; }
    bool operator!=(const Iter& o) const { return i_ != o.i_; }

   private:
    Q* q_;
    size_t i_;
  };
  Iter<RingQueue, T> begin() { return {this, 0}; }
  Iter<RingQueue, T> end() { return {this, size_}; }
  Iter<const RingQueue, const T> begin() const { return {this, 0}; }
  Iter<const RingQueue, const T> end() const { return {this, size_}; }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 16 : 2 * slots_.size());
    for (size_t i = 0; i < size_; ++i) bigger[i] = std::move((*this)[i]);
    // The free slots' old contents move too, so their buffers are kept.
    for (size_t i = size_; i < slots_.size(); ++i) bigger[i] = std::move((*this)[i]);
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<T> slots_;
  size_t head_ = 0;
  size_t size_ = 0;
};

}  // namespace evb
