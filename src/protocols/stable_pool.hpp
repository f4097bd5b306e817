#pragma once
// StablePool: a free-list of objects whose addresses stay valid while they
// are in use (a deque never moves its elements), for headers that must live
// until a send completes. Indices fit in a cookie.
#include <cstddef>
#include <deque>
#include <vector>

namespace evb {

template <class T>
class StablePool {
 public:
  // Index of a free element (a new one when none is free).
  size_t acquire() {
    if (free_.empty()) {
      items_.emplace_back();
      return items_.size() - 1;
    }
    const size_t i = free_.back();
    free_.pop_back();
    return i;
  }
  void release(size_t i) { free_.push_back(i); }
  T& operator[](size_t i) { return items_[i]; }

 private:
  std::deque<T> items_;
  std::vector<size_t> free_;
};

}  // namespace evb
