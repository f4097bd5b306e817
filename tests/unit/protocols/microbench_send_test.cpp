// How the micro-benchmark's sender hands messages to the driver: with one
// reused buffer (ru_buffer = one message) and several messages in flight,
// as ucx_perftest and fi_rma_bw send, every message still leaves as one
// contiguous segment of that buffer. A gathered send (header + payload)
// took UCX off its zero-copy rendezvous at window 32 (issue 38). Over a
// driver that only records posts.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "microbench_agents.hpp"

namespace evb::micro {
namespace {

using test::one_way;

// RU 0 on rank 0 gets `credits` credits from BU 1 and sends; returns the
// segment count of every data send it posted, in order.
std::vector<size_t> data_sends(const Config& c, int credits) {
  test::Sender sender(c);
  for (int i = 0; i < credits; ++i) sender.credit(static_cast<uint64_t>(i));
  return sender.data_sends();
}

TEST(MicrobenchSend, OneBufferManyInFlightSendsItWhole) {
  const Config c = one_way(8, 4096);  // one message's ring, 8 in flight
  const std::vector<size_t> sends = data_sends(c, 8);
  ASSERT_EQ(sends.size(), 8u);
  for (size_t n : sends) EXPECT_EQ(n, 1u) << "a gathered send";
}

TEST(MicrobenchSend, ARingStillRotates) {
  const Config c = one_way(4, 4 * 4096);  // four slots, four in flight: all free
  const std::vector<size_t> sends = data_sends(c, 4);
  ASSERT_EQ(sends.size(), 4u);
  for (size_t n : sends) EXPECT_EQ(n, 1u);
}

}  // namespace
}  // namespace evb::micro
