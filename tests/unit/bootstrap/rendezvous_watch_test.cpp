#include "bootstrap/rendezvous_watch.hpp"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace evb::boot {
namespace {

// A connected pair of stream sockets: [0] watched, [1] the "server" side.
struct Pair {
  int fd[2] = {-1, -1};
  Pair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd), 0); }
  ~Pair() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
  void close_server() {
    ::close(fd[1]);
    fd[1] = -1;
  }
};

// Counts calls and lets the test wait for the first one.
struct Calls {
  std::mutex mu;
  std::condition_variable cv;
  int n = 0;
  void hit() {
    std::lock_guard<std::mutex> lock(mu);
    ++n;
    cv.notify_all();
  }
  bool wait_for_one() {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(20), [this] { return n > 0; });
  }
};

TEST(RendezvousWatch, CallsBackWhenTheServerSideCloses) {
  Pair p;
  Calls calls;
  RendezvousWatch watch(p.fd[0], [&calls] { calls.hit(); });
  p.close_server();
  ASSERT_TRUE(calls.wait_for_one());
  EXPECT_EQ(calls.n, 1);
}

TEST(RendezvousWatch, DataFromTheServerIsNeitherALossNorConsumed) {
  Pair p;
  Calls calls;
  {
    RendezvousWatch watch(p.fd[0], [&calls] { calls.hit(); });
    ASSERT_EQ(::write(p.fd[1], "x", 1), 1);
    // Let the watch see the readable socket (it must not take the byte).
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(calls.n, 0);
  char c = 0;
  EXPECT_EQ(::read(p.fd[0], &c, 1), 1);
  EXPECT_EQ(c, 'x');
}

TEST(RendezvousWatch, StoppedWatchNeverCallsBackAndOwnerMayCloseItsDescriptor) {
  Pair p;
  Calls calls;
  {
    RendezvousWatch watch(p.fd[0], [&calls] { calls.hit(); });
    ::close(p.fd[0]);  // the owner's descriptor; the watch keeps its duplicate
    p.fd[0] = -1;
  }  // stopped before the server side goes
  p.close_server();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(calls.n, 0);
}

}  // namespace
}  // namespace evb::boot
