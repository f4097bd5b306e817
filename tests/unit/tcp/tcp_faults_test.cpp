// Failures: stray clients at setup, connect timeouts, peers that vanish.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <set>

#include "core/error.hpp"
#include "drivers/tcp/tcp_wire.hpp"
#include "tcp_test_util.hpp"

namespace evb::tcp {
namespace {

using test::Cluster;
using test::pattern;

Fd dial(const std::string& endpoint) {
  sockaddr_in addr = resolve_endpoint(endpoint);
  Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  EXPECT_EQ(::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  timeval tv{5, 0};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  return fd;
}

// Reads until EOF/reset; true if the remote end closed the connection.
bool closed_by_remote(int fd) {
  char buf[256];
  for (;;) {
    ssize_t r = ::recv(fd, buf, sizeof buf, 0);
    if (r == 0 || (r < 0 && errno == ECONNRESET)) return true;
    if (r < 0) return false;  // timeout
  }
}

TEST(TcpFaults, StrayClientsAreRefusedAndTheRunContinues) {
  Cluster c(2);
  // Rank 1 accepts (rank 0 connects to it): strays knock on its door first.
  Fd garbage = dial(c.addresses()[1]);
  const char junk[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_GT(::send(garbage.get(), junk, sizeof junk, 0), 0);
  Fd other_run = dial(c.addresses()[1]);
  Handshake hello;
  hello.run_id = 12345;
  hello.from_rank = 0;
  hello.to_rank = 1;
  ASSERT_EQ(::send(other_run.get(), &hello, sizeof hello, 0), static_cast<ssize_t>(sizeof hello));
  Fd impostor = dial(c.addresses()[1]);  // right run, but claims a rank that does not dial 1
  hello.run_id = run_id_of(c.addresses());
  hello.from_rank = 1;
  ASSERT_EQ(::send(impostor.get(), &hello, sizeof hello, 0), static_cast<ssize_t>(sizeof hello));

  testing::internal::CaptureStderr();
  c.connect();
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("refused connection from 127.0.0.1:"), std::string::npos) << log;
  EXPECT_NE(log.find("run id mismatch"), std::string::npos) << log;
  EXPECT_NE(log.find("not an evbench tcp hello"), std::string::npos) << log;
  EXPECT_TRUE(closed_by_remote(garbage.get()));
  Handshake reply;
  ASSERT_EQ(::recv(other_run.get(), &reply, sizeof reply, MSG_WAITALL),
            static_cast<ssize_t>(sizeof reply));
  // The reject says why, but not what the stranger should have sent.
  EXPECT_EQ(reply.kind, static_cast<uint16_t>(HandshakeKind::reject));
  EXPECT_EQ(reply.reason, static_cast<uint32_t>(RefuseReason::run_id_mismatch));
  EXPECT_EQ(reply.run_id, 0u);
  EXPECT_EQ(reply.from_rank, -1);
  EXPECT_EQ(reply.to_rank, -1);
  EXPECT_TRUE(closed_by_remote(other_run.get()));
  EXPECT_TRUE(closed_by_remote(impostor.get()));

  auto msg = pattern(1000, 1);
  std::vector<std::byte> buf(1000);
  c[1].post_recv(0, 1, buf.data(), buf.size(), nullptr, 1);
  Segment s{msg.data(), msg.size()};
  c[0].post_send(1, 1, {&s, 1}, 1);
  auto r = c.take(1, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, OpStatus::ok);
  EXPECT_EQ(buf, msg);
}

// A local client that knows every rank's host:port (they are no secret) but
// not the secrets exchanged through the bootstrap claims rank 0 on rank 1's
// listener before rank 0 dials: it is refused and the real rank 0 connects.
TEST(TcpFaults, ImpostorKnowingEveryEndpointCannotTakeARank) {
  Cluster c(2);
  std::vector<std::string> endpoints;
  for (const auto& a : c.addresses()) endpoints.push_back(endpoint_of(a));
  EXPECT_NE(endpoints, c.addresses());
  Fd impostor = dial(c.addresses()[1]);
  Handshake hello;
  hello.run_id = run_id_of(endpoints);
  hello.from_rank = 0;
  hello.to_rank = 1;
  ASSERT_EQ(::send(impostor.get(), &hello, sizeof hello, 0), static_cast<ssize_t>(sizeof hello));

  testing::internal::CaptureStderr();
  c.connect();
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_NE(log.find("run id mismatch"), std::string::npos) << log;
  EXPECT_EQ(log.find('#'), std::string::npos) << "a secret reached the log: " << log;
  EXPECT_TRUE(closed_by_remote(impostor.get()));

  auto msg = pattern(100, 2);
  std::vector<std::byte> buf(100);
  c[0].post_recv(1, 1, buf.data(), buf.size(), nullptr, 1);
  Segment s{msg.data(), msg.size()};
  c[1].post_send(0, 1, {&s, 1}, 1);
  auto r = c.take(0, 1);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, OpStatus::ok);
  EXPECT_EQ(buf, msg);
}

TEST(TcpFaults, ConnectTimeoutNamesTheMissingRank) {
  // Rank 1's address: a bound socket that never listens (connections refused).
  Fd dead(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr = resolve_host("127.0.0.1", 0);
  ASSERT_EQ(::bind(dead.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  std::string dead_address = "127.0.0.1:" + std::to_string(local_port(dead.get()));

  TcpOptions opts = parse_tcp_options(nullptr);
  opts.connect_timeout = std::chrono::milliseconds(300);
  auto d0 = make_tcp_driver(test::context_of(0, 3), opts);
  std::vector<std::string> addresses = {d0->local_address(), dead_address, "127.0.0.1:9"};
  try {
    d0->connect(addresses, {1});
    FAIL() << "connect() should time out";
  } catch (const PeerError& e) {
    std::string what = e.what();
    EXPECT_EQ(e.peer(), 1);
    EXPECT_NE(what.find("rank 1 (" + dead_address), std::string::npos) << what;
    EXPECT_NE(what.find("ECONNREFUSED"), std::string::npos) << what;
  }
  // The acceptor side names the rank that never dialled in.
  auto d2 = make_tcp_driver(test::context_of(2, 3), opts);
  addresses[2] = d2->local_address();
  try {
    d2->connect(addresses, {0, 1});
    FAIL() << "connect() should time out";
  } catch (const PeerError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("rank 0"), std::string::npos) << what;
    EXPECT_NE(what.find("rank 1"), std::string::npos) << what;
  }
}

TEST(TcpFaults, PeerClosingWithoutByeIsLost) {
  Cluster c(3);
  c.connect();
  std::vector<std::byte> buf(100), any(100);
  c[0].post_recv(1, 1, buf.data(), buf.size(), nullptr, 1);
  c[0].post_recv(kAnyPeer, 1, any.data(), any.size(), nullptr, 2);
  c.destroy(1);  // closes its sockets without BYE
  testing::internal::CaptureStderr();
  auto r = c.take(0, 2);
  std::string log = testing::internal::GetCapturedStderr();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].type, OpType::peer_event);  // first (drivers/common/peer_down.hpp)
  EXPECT_EQ(r[0].status, OpStatus::peer_lost);
  EXPECT_EQ(r[0].peer, 1);
  EXPECT_EQ(r[1].cookie, 1u);
  EXPECT_EQ(r[1].status, OpStatus::peer_lost);
  std::string err = c[0].last_error();
  EXPECT_NE(err.find("rank 1 (" + endpoint_of(c.addresses()[1]) + ")"), std::string::npos) << err;
  // The loss is reported once, by whoever reads last_error(), not here.
  EXPECT_EQ(log.find("lost"), std::string::npos) << log;
  // The any-peer receive still waits for rank 2, and gets its message.
  uint32_t v = 7;
  Segment s{&v, 4};
  c[2].post_send(0, 1, {&s, 1}, 1);
  auto r2 = c.take(0, 1);
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_EQ(r2[0].cookie, 2u);
  EXPECT_EQ(r2[0].peer, 2);
  // Posting to the lost peer completes at once.
  c[0].post_send(1, 1, {&s, 1}, 3);
  c[0].post_recv(1, 1, buf.data(), buf.size(), nullptr, 4);
  auto r3 = c.take(0, 2);
  ASSERT_EQ(r3.size(), 2u);
  EXPECT_EQ(r3[0].status, OpStatus::peer_lost);
  EXPECT_EQ(r3[1].status, OpStatus::peer_lost);
}

// A forked child that is killed mid-run: pending receive and a large send to
// it fail with peer_lost; SIGPIPE does not kill the parent.
TEST(TcpFaults, KilledChildProcessIsLost) {
  int up[2], down[2];
  ASSERT_EQ(::pipe(up), 0);
  ASSERT_EQ(::pipe(down), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(up[0]);
    ::close(down[1]);
    auto d = make_tcp_driver(test::context_of(1, 2), parse_tcp_options(nullptr));
    std::string mine = d->local_address();
    char theirs[64] = {};
    (void)!::write(up[1], mine.c_str(), mine.size() + 1);
    if (::read(down[0], theirs, sizeof theirs - 1) <= 0) ::_exit(2);
    d->connect({theirs, mine}, {0});
    (void)!::write(up[1], "ok", 3);
    for (;;) ::pause();  // connected and idle, never reading: wait to be killed
  }
  ::close(up[1]);
  ::close(down[0]);
  auto d = make_tcp_driver(test::context_of(0, 2), parse_tcp_options(nullptr));
  std::string mine = d->local_address();
  char child[64] = {};
  ASSERT_GT(::read(up[0], child, sizeof child - 1), 0);
  ASSERT_EQ(::write(down[1], mine.c_str(), mine.size() + 1), static_cast<ssize_t>(mine.size() + 1));
  d->connect({mine, child}, {1});
  char ok[3] = {};
  ASSERT_GT(::read(up[0], ok, sizeof ok), 0);

  std::vector<std::byte> buf(64);
  d->post_recv(1, 1, buf.data(), buf.size(), nullptr, 1);
  auto big = pattern(32 << 20, 1);  // more than the socket buffers hold
  Segment s{big.data(), big.size()};
  d->post_send(1, 1, {&s, 1}, 2);
  Completion out[8];
  EXPECT_EQ(d->poll(out), 0u);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::vector<Completion> got;
  testing::internal::CaptureStderr();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (got.size() < 3 && std::chrono::steady_clock::now() < deadline) {
    d->wait(std::chrono::milliseconds(50));
    size_t n = d->poll(out);
    got.insert(got.end(), out, out + n);
  }
  testing::internal::GetCapturedStderr();
  ASSERT_EQ(got.size(), 3u);
  std::set<uint64_t> cookies;
  for (const auto& c : got) {
    EXPECT_EQ(c.status, OpStatus::peer_lost);
    EXPECT_EQ(c.peer, 1);
    if (c.type != OpType::peer_event) cookies.insert(c.cookie);
  }
  EXPECT_EQ(cookies, (std::set<uint64_t>{1, 2}));
  EXPECT_NE(d->last_error().find("rank 1 (" + endpoint_of(child) + ")"), std::string::npos)
      << d->last_error();
  ::close(up[0]);
  ::close(down[1]);
}

}  // namespace
}  // namespace evb::tcp
