// RingQueue: FIFO order across wrap-around and growth, and slots that keep
// what they owned (so reused elements keep their buffers' capacity).
#include "core/ring_queue.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace evb {
namespace {

TEST(RingQueue, FifoAcrossWrapAndGrowth) {
  RingQueue<int> q;
  int next_in = 0;
  int next_out = 0;
  // Interleave pushes and pops so the head wraps, then grow while wrapped.
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < 7; ++i) q.push_back(next_in++);
    for (int i = 0; i < 5; ++i) {
      ASSERT_FALSE(q.empty());
      EXPECT_EQ(q.front(), next_out++);
      q.pop_front();
    }
  }
  EXPECT_EQ(q.size(), static_cast<size_t>(next_in - next_out));
  int expect = next_out;
  for (int v : q) EXPECT_EQ(v, expect++);
  EXPECT_EQ(q[0], next_out);
  EXPECT_EQ(q.back(), next_in - 1);
  while (!q.empty()) {
    EXPECT_EQ(q.front(), next_out++);
    q.pop_front();
  }
  EXPECT_EQ(next_out, next_in);
}

TEST(RingQueue, StopsAllocatingAtSteadyDepth) {
  RingQueue<int> q;
  for (int i = 0; i < 100; ++i) q.push_back(i);
  const size_t cap = q.capacity();
  for (int i = 0; i < 100000; ++i) {
    q.pop_front();
    q.push_back(i);
  }
  EXPECT_EQ(q.capacity(), cap);
  EXPECT_EQ(q.size(), 100u);
}

TEST(RingQueue, ReusedSlotsKeepTheirBuffers) {
  RingQueue<std::vector<int>> q;
  q.push_slot().assign(1000, 1);
  const int* buffer = q.front().data();
  q.pop_front();
  for (size_t i = 1; i < q.capacity(); ++i) {  // go round once
    q.push_slot().clear();
    q.pop_front();
  }
  std::vector<int>& again = q.push_slot();  // the first slot again
  EXPECT_GE(again.capacity(), 1000u);
  again.assign(10, 2);
  EXPECT_EQ(again.data(), buffer);  // no new allocation
}

}  // namespace
}  // namespace evb
