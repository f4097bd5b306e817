// SO_RCVLOWAT while a large payload is half read (driver_options.rcvlowat),
// on a real loopback TCP connection: the mark is raised to the bytes still
// missing, and goes back to the kernel's default afterwards so that a small
// message behind the payload is not held back. (Whether the kernel then
// really wakes later depends on its receive window, which a test cannot pin
// down; bench/reference.sh measures the effect.) Messages are kept well
// inside the initial window so that the blocking writes never wait.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstring>
#include <vector>

#include "drivers/tcp/tcp_connection.hpp"
#include "drivers/tcp/tcp_socket.hpp"
#include "drivers/tcp/tcp_wire.hpp"
#include "tcp_test_util.hpp"

namespace evb::tcp {
namespace {

// Accepts every message into a buffer of `capacity` bytes (0: its length).
class Sink : public FrameSink {
 public:
  size_t capacity = 0;
  std::vector<std::vector<std::byte>> data;
  std::vector<bool> done;

  RecvTarget begin_message(PeerId, Tag, uint64_t length) override {
    data.emplace_back(capacity ? capacity : length);
    done.push_back(false);
    RecvTarget t;
    t.data = data.back().data();
    t.capacity = data.back().size();
    t.cookie = data.size() - 1;
    return t;
  }
  void end_message(PeerId, Tag, const RecvTarget& t, uint64_t, OpStatus status) override {
    EXPECT_EQ(status, OpStatus::ok);
    done.at(t.cookie) = true;
  }
  void send_done(PeerId, Tag, uint64_t, size_t, OpStatus) override {}
};

// A connected pair of loopback TCP sockets: `tx` blocking (the test writes
// raw frames with it), `rx` non-blocking (the Connection under test).
struct LoopbackPair {
  Fd tx, rx;
  LoopbackPair() {
    Fd listener = make_listener(resolve_host("127.0.0.1", 0), {}, 1);
    const sockaddr_in to = resolve_host("127.0.0.1", local_port(listener.get()));
    tx = Fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    EXPECT_EQ(::connect(tx.get(), reinterpret_cast<const sockaddr*>(&to), sizeof to), 0);
    pollfd p{listener.get(), POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 5000), 1);
    rx = Fd(::accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    EXPECT_TRUE(rx.valid());
  }
  void write(const void* p, size_t n) const {
    const auto* b = static_cast<const std::byte*>(p);
    while (n > 0) {
      const ssize_t w = ::send(tx.get(), b, n, MSG_NOSIGNAL);
      ASSERT_GT(w, 0);
      b += w;
      n -= static_cast<size_t>(w);
    }
  }
  void frame(uint64_t length) const {
    FrameHeader h;
    h.tag = 7;
    h.length = length;
    write(&h, sizeof h);
  }
};

int lowat_of(int fd) {
  int v = -1;
  socklen_t len = sizeof v;
  EXPECT_EQ(::getsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &v, &len), 0);
  return v;
}

bool readable_within(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, ms) == 1;
}

// Reads until the sink has `n` finished messages (the data is all sent).
void read_messages(Connection& rx, const Sink& sink, size_t n) {
  for (int round = 0; round < 1000; ++round) {
    size_t finished = 0;
    for (bool d : sink.done) finished += d ? 1 : 0;
    if (finished == n) return;
    ASSERT_TRUE(readable_within(rx.fd(), 5000)) << "no data after " << finished << " messages";
    ASSERT_EQ(rx.on_readable(), IoResult::ok);
  }
  FAIL() << "messages not finished";
}

constexpr size_t kBig = 48 * 1024;  // > 2 x the 16 KiB staging: read directly
constexpr size_t kFirst = 20 * 1024;

TEST(TcpRcvLowat, HalfReadPayloadRaisesTheMarkToTheRestThenDropsIt) {
  LoopbackPair p;
  Sink sink;
  Connection rx(1, std::move(p.rx), sink);  // default limits: rcvlowat on
  const auto big = test::pattern(kBig, 5);
  p.frame(kBig);
  p.write(big.data(), kFirst);
  ASSERT_TRUE(readable_within(rx.fd(), 5000));
  // Reads what is there (it may take more than one wake-up to drain).
  while (readable_within(rx.fd(), 0)) ASSERT_EQ(rx.on_readable(), IoResult::ok);
  ASSERT_EQ(sink.done.size(), 1u);
  EXPECT_FALSE(sink.done[0]);
  const int lowat = lowat_of(rx.fd());
  EXPECT_GT(lowat, 1) << "a half-read payload leaves the socket at the default low-water mark";
  EXPECT_LE(static_cast<size_t>(lowat), kBig - kFirst);

  // The rest in two parts and a small message behind it: both delivered,
  // the mark back to 1.
  const size_t part = (kBig - kFirst) / 2;
  p.write(big.data() + kFirst, part);
  p.write(big.data() + kFirst + part, kBig - kFirst - part);
  const uint64_t small = 0x1122334455667788ull;
  p.frame(sizeof small);
  p.write(&small, sizeof small);
  read_messages(rx, sink, 2);
  EXPECT_EQ(std::memcmp(sink.data[0].data(), big.data(), kBig), 0);
  EXPECT_EQ(std::memcmp(sink.data[1].data(), &small, sizeof small), 0);
  EXPECT_EQ(lowat_of(rx.fd()), 1);
}

TEST(TcpRcvLowat, OffLeavesTheSocketAlone) {
  LoopbackPair p;
  Sink sink;
  ConnectionLimits limits;
  limits.rcvlowat = 0;
  Connection rx(1, std::move(p.rx), sink, limits);
  const auto big = test::pattern(kBig, 6);
  p.frame(kBig);
  p.write(big.data(), kFirst);
  ASSERT_TRUE(readable_within(rx.fd(), 5000));
  while (readable_within(rx.fd(), 0)) ASSERT_EQ(rx.on_readable(), IoResult::ok);
  EXPECT_EQ(lowat_of(rx.fd()), 1);
  p.write(big.data() + kFirst, kBig - kFirst);
  read_messages(rx, sink, 1);
  EXPECT_EQ(std::memcmp(sink.data[0].data(), big.data(), kBig), 0);
}

TEST(TcpRcvLowat, TruncatedTargetDropsTheMarkBeforeDiscardingTheRest) {
  // A receive buffer smaller than the message: the bytes past it are read
  // through the staging buffer and discarded, so the mark must not wait for
  // them (nor for a small message behind them).
  LoopbackPair p;
  Sink sink;
  sink.capacity = 36 * 1024;
  Connection rx(1, std::move(p.rx), sink);
  const auto big = test::pattern(kBig, 7);
  p.frame(kBig);
  p.write(big.data(), kFirst);
  ASSERT_TRUE(readable_within(rx.fd(), 5000));
  while (readable_within(rx.fd(), 0)) ASSERT_EQ(rx.on_readable(), IoResult::ok);
  EXPECT_LE(static_cast<size_t>(lowat_of(rx.fd())), sink.capacity - kFirst);
  p.write(big.data() + kFirst, kBig - kFirst);
  const uint32_t small = 42;
  p.frame(sizeof small);
  p.write(&small, sizeof small);
  read_messages(rx, sink, 2);
  EXPECT_EQ(std::memcmp(sink.data[0].data(), big.data(), sink.capacity), 0);
  EXPECT_EQ(std::memcmp(sink.data[1].data(), &small, sizeof small), 0);
  EXPECT_EQ(lowat_of(rx.fd()), 1);
}

}  // namespace
}  // namespace evb::tcp
