// Contract item 6: a peer process that dies surfaces as completions naming
// it. Rank 1 is a child process (this binary re-executed with
// --conformance-child, so it starts with fresh library state) that creates
// its own driver through the factory; the addresses travel over a
// socketpair. Once connected, the child is SIGKILLed.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

#include "conformance_checks.hpp"

namespace evb::conformance {
namespace {

// Length-prefixed strings over the socketpair.
bool send_str(int fd, const std::string& s) {
  std::string frame(4, '\0');
  const uint32_t n = static_cast<uint32_t>(s.size());
  std::memcpy(frame.data(), &n, 4);
  frame += s;
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t w = ::send(fd, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

bool read_exact(int fd, char* p, size_t n, Clock::time_point deadline) {
  size_t done = 0;
  while (done < n) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd pfd{fd, POLLIN, 0};
    int rc = ::poll(&pfd, 1, static_cast<int>(std::min<int64_t>(left, 1000)));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    ssize_t r = ::recv(fd, p + done, n - done, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<size_t>(r);
  }
  return true;
}

std::optional<std::string> recv_str(int fd, milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  uint32_t n = 0;
  if (!read_exact(fd, reinterpret_cast<char*>(&n), 4, deadline)) return std::nullopt;
  std::string s(n, '\0');
  if (!read_exact(fd, s.data(), n, deadline)) return std::nullopt;
  return s;
}

// Kills and reaps the child whatever way the test ends.
struct ChildProcess {
  pid_t pid = -1;
  ~ChildProcess() { kill_and_reap(); }
  void kill_and_reap() {
    if (pid <= 0) return;
    ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    remove_shm_litter(pid);
    pid = -1;
  }
};

}  // namespace

int child_main(const std::string& label, int fd) {
  const Variant* v = find_variant(label);
  if (!v) {
    std::fprintf(stderr, "conformance child: unknown variant %s\n", label.c_str());
    return 3;
  }
  try {
    const Config config = config_for(*v);
    auto d = registry().driver(v->driver)->create(
        DriverContext{.rank = 1, .size = 2, .all_local = true, .config = &config});
    const std::string mine = d->local_address();
    if (!send_str(fd, mine)) return 4;
    auto parent = recv_str(fd, milliseconds(30000));
    if (!parent) return 5;
    d->connect({*parent, mine}, {0});
    send_str(fd, "connected");
    // A live, responsive peer until killed; leaves when the parent goes away.
    Completion buf[16];
    for (;;) {
      d->poll(buf);
      pollfd pfd{fd, POLLIN, 0};
      if (::poll(&pfd, 1, 1) > 0) return 0;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "conformance child (%s): %s\n", label.c_str(), e.what());
    send_str(fd, std::string("error: ") + e.what());
    return 1;
  }
}

namespace {

bool is_failure(OpStatus s) {
  return s == OpStatus::peer_lost || s == OpStatus::error;
}

TEST_P(DriverContract, KilledPeerIsReportedWithItsRank) {
  const Variant& v = GetParam();
  if (auto why = cannot_run_here(v)) GTEST_SKIP() << *why;
  if (!v.lost_peer_undetectable.empty()) GTEST_SKIP() << v.lost_peer_undetectable;
  if (!v.process_bootstrap.empty()) {
    GTEST_SKIP() << v.label << ": one rank per process under a launcher; a killed rank cannot "
                 << "be simulated by a child process";
  }
  const DriverFactory& f = *registry().driver(v.driver);
  const Config config = config_for(v);

  // Declared so that the child dies first, then registrations, then the
  // driver, then the memory it may still touch.
  std::vector<std::byte> recv_mem(64 + 64, std::byte{0xee});
  std::vector<std::byte> big = pattern(8u << 20, 3);
  std::vector<std::byte> small = pattern(64, 4);
  std::unique_ptr<Driver> d;
  try {
    Guard g(v.label + " rank 0: DriverFactory::create", milliseconds(20000));
    d = f.create(DriverContext{.rank = 0, .size = 2, .all_local = true, .config = &config});
  } catch (const std::exception& e) {
    // The probe said this variant runs here (cannot_run_here above).
    FAIL() << v.label << ": the driver's probe says this variant can run here, but "
           << "DriverFactory::create threw: " << e.what();
  }
  ASSERT_TRUE(d);
  RegistrationPtr recv_reg = d->register_memory(recv_mem.data(), recv_mem.size());
  RegistrationPtr big_reg = d->register_memory(big.data(), big.size());
  RegistrationPtr small_reg = d->register_memory(small.data(), small.size());
  const std::string mine = d->local_address();

  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  // Everything the child needs is built before fork (only exec follows).
  std::string fd_arg = std::to_string(sv[1]);
  std::string label = v.label;
  char flag[] = "--conformance-child";
  char exe[] = "/proc/self/exe";
  char* argv[] = {exe, flag, label.data(), fd_arg.data(), nullptr};
  ChildProcess child;
  child.pid = ::fork();
  ASSERT_GE(child.pid, 0);
  if (child.pid == 0) {
    ::close(sv[0]);
    ::fcntl(sv[1], F_SETFD, 0);
    ::execv(exe, argv);
    ::_exit(127);
  }
  ::close(sv[1]);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{sv[0]};

  auto theirs = recv_str(sv[0], milliseconds(20000));
  ASSERT_TRUE(theirs) << "the child never sent its address";
  ASSERT_NE(theirs->rfind("error: ", 0), 0u)
      << "the child (rank 1) could not set up the variant the probe says runs here: " << *theirs;
  ASSERT_TRUE(send_str(sv[0], mine));
  try {
    Guard g(v.label + " rank 0: connect() to the child", milliseconds(30000));
    d->connect({mine, *theirs}, {1});
  } catch (const std::exception& e) {
    FAIL() << "connect() to the child threw: " << e.what();
  }
  auto hello = recv_str(sv[0], milliseconds(20000));
  ASSERT_TRUE(hello) << "the child did not report being connected";
  ASSERT_EQ(*hello, "connected");

  std::map<uint64_t, Completion> done;
  std::vector<Completion> events;
  size_t duplicates = 0;
  auto poll_some = [&] {
    Completion buf[32];
    size_t n = 0;
    {
      Guard g(v.label + " rank 0: poll()", milliseconds(5000));
      n = d->poll(buf);
    }
    for (size_t i = 0; i < n; ++i) {
      if (buf[i].type == OpType::peer_event) {
        events.push_back(buf[i]);
      } else if (!done.emplace(buf[i].cookie, buf[i]).second) {
        ++duplicates;
        ADD_FAILURE() << "second completion of cookie " << buf[i].cookie << ": "
                      << describe(buf[i]);
      }
    }
    if (n == 0) std::this_thread::yield();
  };
  auto poll_until = [&](const std::function<bool()>& ok, milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    while (!ok() && Clock::now() < deadline) poll_some();
    return ok();
  };

  // A receive the child will never satisfy, and a large send to it.
  d->post_recv(1, 1, recv_mem.data(), 64, recv_reg.get(), 1);
  Segment s{big.data(), big.size(), big_reg.get()};
  d->post_send(1, 2, {&s, 1}, 2);
  poll_until([] { return false; }, milliseconds(200));
  EXPECT_EQ(done.count(1), 0u) << "the receive completed while the child was alive: "
                               << describe(done[1]);

  ::kill(child.pid, SIGKILL);
  child.kill_and_reap();

  const bool both_done =
      poll_until([&] { return done.count(1) && done.count(2); }, milliseconds(8000));
  EXPECT_TRUE(both_done) << "after the child (rank 1) was killed, within 8 s: the receive from "
                         << "it " << (done.count(1) ? "completed" : "never completed")
                         << ", the 8 MiB send to it "
                         << (done.count(2) ? "completed" : "never completed") << "; last_error: '"
                         << d->last_error() << "'";
  if (done.count(1)) {
    const Completion& c = done[1];
    EXPECT_EQ(c.type, OpType::recv) << describe(c);
    EXPECT_TRUE(is_failure(c.status)) << "receive from the killed rank: " << describe(c);
    EXPECT_EQ(c.peer, 1) << "receive from the killed rank: " << describe(c);
  }
  if (done.count(2)) {
    const Completion& c = done[2];
    EXPECT_EQ(c.type, OpType::send) << describe(c);
    EXPECT_EQ(c.peer, 1) << "send to the killed rank: " << describe(c);
  }

  // Once the loss is known, new operations on that peer fail too.
  Segment s3{small.data(), small.size(), small_reg.get()};
  d->post_send(1, 3, {&s3, 1}, 3);
  d->post_recv(1, 4, recv_mem.data() + 64, 64, recv_reg.get(), 4);
  EXPECT_TRUE(poll_until([&] { return done.count(3) && done.count(4); }, milliseconds(3000)))
      << "within 3 s, of a send (cookie 3) and a receive (cookie 4) posted to rank 1 after it "
      << "was killed, " << (done.count(3) ? "the send completed" : "the send never completed")
      << " and " << (done.count(4) ? "the receive completed" : "the receive never completed")
      << "; last_error: '" << d->last_error() << "'";
  for (uint64_t cookie : {3u, 4u}) {
    if (!done.count(cookie)) continue;
    const Completion& c = done[cookie];
    EXPECT_TRUE(is_failure(c.status)) << "posted after the loss: " << describe(c);
    EXPECT_EQ(c.peer, 1) << "posted after the loss: " << describe(c);
  }
  for (const Completion& e : events) {
    EXPECT_EQ(e.peer, 1) << "peer_event: " << describe(e);
    EXPECT_TRUE(is_failure(e.status)) << "a killed peer is lost, not closed: " << describe(e);
  }
  EXPECT_LE(events.size(), 1u) << "more than one peer_event for one lost peer";

  bool any_error = false;
  for (const auto& [cookie, c] : done) any_error = any_error || c.status == OpStatus::error;
  const std::string err = d->last_error();
  if (any_error) {
    EXPECT_NE(err.find("rank 1"), std::string::npos)
        << "last_error() after an error completion must name the rank: '" << err << "'";
  }
  if (!err.empty() && err.find("rank 1") == std::string::npos) {
    ADD_FAILURE() << "last_error() does not name the lost rank 1: '" << err << "'";
  }
  std::printf("[ info     ] %s: last_error() = '%s'\n", v.label.c_str(), err.c_str());

  poll_until([] { return false; }, milliseconds(200));
  std::string all;
  for (const auto& [cookie, c] : done) {
    if (cookie < 1 || cookie > 4) ADD_FAILURE() << "completion never posted: " << describe(c);
    all += " " + describe(c);
  }
  for (const auto& e : events) all += " " + describe(e);
  std::printf("[ info     ] %s: completions:%s\n", v.label.c_str(), all.c_str());
  EXPECT_EQ(duplicates, 0u);

  // shutdown() must return although rank 1 never says goodbye: the Guard
  // only bounds a hang (it ends the process with a [  HANG    ] line); how
  // fast it returns is not this test's business.
  try {
    Guard g(v.label + " rank 0: shutdown() with rank 1 lost", milliseconds(30000));
    d->shutdown();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "shutdown() with a lost peer threw: " << e.what();
  }
  small_reg.reset();
  big_reg.reset();
  recv_reg.reset();
}

}  // namespace
}  // namespace evb::conformance
