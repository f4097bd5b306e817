// wait() on a provider with a CQ wait fd never sleeps for its whole timeout:
// the fd of tcp;ofi_rxm can miss a wake-up (ofiwg/libfabric#7613), so the
// driver naps at most a few milliseconds before it looks at the CQ itself
// (lf_complete.cpp, kLostWakeupBound). A wait(10 min) with nothing pending
// must therefore come back, and a message that arrives while the driver
// sleeps is seen by the poll() after it. The deadline below only bounds a
// hang (a sleeping wait() would last 10 minutes); it is no speed limit.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "lf_test_util.hpp"

namespace evb::libfabric {
namespace {

using test::Cluster;

// Ends the process with a line naming `what` if it is still alive after
// `limit`: a wait() that sleeps on would otherwise hold the test 10 minutes.
class HangGuard {
 public:
  HangGuard(std::string what, std::chrono::seconds limit)
      : thread_([this, what = std::move(what), limit] {
          const auto until = std::chrono::steady_clock::now() + limit;
          while (!done_.load()) {
            if (std::chrono::steady_clock::now() >= until) {
              std::fprintf(stderr, "[  HANG    ] %s did not return within %lld s\n", what.c_str(),
                           static_cast<long long>(limit.count()));
              std::_Exit(1);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
        }) {}
  ~HangGuard() {
    done_ = true;
    thread_.join();
  }
  HangGuard(const HangGuard&) = delete;
  HangGuard& operator=(const HangGuard&) = delete;

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

class LfWait : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { LF_REQUIRE_PROVIDER(GetParam()); }
  LfOptions options() const { return test::options_for(GetParam()); }
};

TEST_P(LfWait, LongWaitWithNothingPendingComesBackWithinTheBound) {
  Cluster c(2, options());
  c.connect();
  if (!c[1].capabilities().can_block) {
    GTEST_SKIP() << c[1].name() << " gives no CQ wait fd (can_block false): wait() returns at once";
  }
  std::vector<std::byte> buf(64);
  c[1].post_recv(0, 7, buf.data(), buf.size(), nullptr, 1);
  {
    HangGuard g(c[1].name() + ": wait(10 min) with a receive posted and nothing sent",
                std::chrono::seconds(60));
    c[1].wait(std::chrono::minutes(10));
  }
  // The receive is still there and still works after the early return.
  const auto msg = test::pattern(64, 3);
  Segment s{msg.data(), msg.size(), nullptr};
  c[0].post_send(1, 7, {&s, 1}, 2);
  auto got = c.take(1, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].status, OpStatus::ok) << c[1].last_error();
  EXPECT_EQ(got[0].cookie, 1u);
}

std::string provider_of(const ::testing::TestParamInfo<std::string>& p) {
  return p.param;
}

INSTANTIATE_TEST_SUITE_P(libfabric, LfWait, ::testing::Values("tcp"), provider_of);

}  // namespace
}  // namespace evb::libfabric
