// The ucx driver's write with an (emulated) immediate: its rdma_write
// completion comes once the puts completed locally, while the flush and the
// notify go on (docs/drivers/ucx.md, "The write path at window 1"). What
// that must never cost: the target's remote_write before all its bytes
// landed, a source buffer still read after the completion, or a write
// reported complete whose flush then fails without the writer hearing that
// its peer is gone.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "../support/driver_test_util.hpp"
#include "drivers/ucx/ucx_driver.hpp"
#include "drivers/ucx/ucx_options.hpp"

namespace evb::ucx {
namespace {

using Clock = std::chrono::steady_clock;

// Two connected drivers of one process: rank 0 the target, rank 1 the writer.
struct Two {
  Config config;
  std::vector<std::unique_ptr<UcxDriver>> d;
  explicit Two(std::map<std::string, std::string> options) {
    config.driver_options = std::move(options);
    config.driver_options["connect_timeout"] = "10";
    std::vector<std::string> addresses;
    for (int i = 0; i < 2; ++i) {
      DriverContext ctx = evb::test::context_of(i, 2);
      ctx.config = &config;
      d.push_back(std::make_unique<UcxDriver>(ctx, parse_ucx_options(&config)));
      addresses.push_back(d.back()->local_address());
    }
    evb::test::connect_all(d, addresses);
  }
  void shutdown_both() {
    std::thread t([this] { d[1]->shutdown(); });
    d[0]->shutdown();
    t.join();
  }
};

// Word i of the message of write `seq`: every word differs between writes,
// so a slot read before its write landed (or holding a mix) does not match.
uint64_t word(uint64_t seq, size_t i) {
  return (seq << 32) | i;
}

// Window 1 into two target slots, as the micro-benchmark's writer at
// parallel 1: the next write is posted as soon as the last one's completion
// arrives, into the other slot, while the last one's flush and notify may
// still travel. Right after each completion the writer poisons its source
// buffer (the completion says the puts are done with it). On each
// remote_write the target checks every word of the slot the immediate
// names, then hands the slot back. Over tcp (puts emulated with active
// messages on the endpoint's one lane, the notify behind them without a
// flush) with both error-handling modes (`none` keeps tcp's zero-copy put
// lane), over sm (three lanes: a flush before each notify), and over tcp
// with a flush per write as over several lanes.
enum class Lanes { one, several, flushed_as_several };
void run_two_slot_stream(std::map<std::string, std::string> options, Lanes lanes) {
  constexpr size_t kSlot = 4 << 20;
  constexpr size_t kWords = kSlot / sizeof(uint64_t);
  constexpr uint64_t kWrites = 24;
  Two p(std::move(options));
  EXPECT_EQ(p.d[1]->one_lane(0), lanes == Lanes::one || lanes == Lanes::flushed_as_several)
      << p.d[1]->lanes_to(0) << " lanes";
  if (lanes == Lanes::flushed_as_several) p.d[1]->flush_every_write();
  RegistrationPtr arena = p.d[0]->allocate_memory(2 * kSlot, PageSize::normal);
  ASSERT_TRUE(arena);
  std::memset(arena->base(), 0, 2 * kSlot);
  RemoteKeyPtr key = p.d[1]->unpack_key(0, arena->packed_key());
  std::vector<uint64_t> source(kWords);
  RegistrationPtr src = p.d[1]->register_memory(source.data(), kSlot);
  // Two puts per write (a header and the rest), as the micro-benchmark's.
  const Segment segs[2] = {{source.data(), 64, src.get()},
                           {source.data() + 8, kSlot - 64, src.get()}};

  std::deque<uint32_t> free_slots{0, 1};
  bool in_flight = false;
  uint64_t posted = 0, completed = 0, landed = 0, bad_words = 0, bad_landings = 0;
  uint64_t early = 0;  // completions that reached the writer before their remote_write
  std::vector<uint64_t> landed_seq;
  auto post_next = [&] {
    if (in_flight || free_slots.empty() || posted == kWrites) return;
    const uint32_t slot = free_slots.front();
    free_slots.pop_front();
    for (size_t i = 0; i < kWords; ++i) source[i] = word(posted, i);
    p.d[1]->rdma_write(0, segs, *key, slot * kSlot, static_cast<uint32_t>(posted << 1) | slot,
                       posted);
    in_flight = true;
    ++posted;
  };
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  Completion c[16];
  post_next();
  while (landed < kWrites && Clock::now() < deadline) {
    for (size_t i = 0, n = p.d[1]->poll(c); i < n; ++i) {
      ASSERT_EQ(c[i].type, OpType::rdma_write) << p.d[1]->last_error();
      ASSERT_EQ(c[i].status, OpStatus::ok) << p.d[1]->last_error();
      ASSERT_EQ(c[i].cookie, completed) << "completions out of order";
      std::memset(source.data(), 0xEE, kSlot);  // the puts are done with it
      if (landed <= completed) ++early;
      ++completed;
      in_flight = false;
    }
    post_next();
    for (size_t i = 0, n = p.d[0]->poll(c); i < n; ++i) {
      ASSERT_EQ(c[i].type, OpType::remote_write) << p.d[0]->last_error();
      ASSERT_EQ(c[i].status, OpStatus::ok);
      EXPECT_EQ(c[i].bytes, kSlot);
      EXPECT_EQ(c[i].peer, 1);
      const uint64_t seq = c[i].immediate >> 1;
      const uint32_t slot = c[i].immediate & 1;
      const auto* got = reinterpret_cast<const uint64_t*>(arena->base() + slot * kSlot);
      uint64_t wrong = 0;
      for (size_t w = 0; w < kWords; ++w) wrong += got[w] != word(seq, w);
      bad_words += wrong;
      bad_landings += wrong != 0;
      landed_seq.push_back(seq);
      ++landed;
      free_slots.push_back(slot);
    }
    post_next();
  }
  EXPECT_EQ(landed, kWrites) << "writes seen by the target within 60 s; completed " << completed
                             << "; last_error: " << p.d[1]->last_error();
  EXPECT_EQ(bad_landings, 0u) << bad_words << " words of " << bad_landings
                              << " writes were not the write's when its remote_write came: "
                                 "the notify overtook the data, or the source was still read "
                                 "after the completion";
  for (size_t i = 0; i < landed_seq.size(); ++i)
    EXPECT_EQ(landed_seq[i], i) << "remote_write order";
  std::printf(
      "[ info     ] %s: %llu of %llu completions reached the writer before the "
      "target's remote_write\n",
      p.d[1]->name().c_str(), static_cast<unsigned long long>(early),
      static_cast<unsigned long long>(completed));
  EXPECT_EQ(p.d[1]->write_flushes(), lanes == Lanes::one ? 0u : kWrites)
      << "flushes for " << kWrites << " writes with an immediate";
  p.shutdown_both();
  EXPECT_EQ(p.d[1]->background_writes(), 0u);
  EXPECT_EQ(p.d[1]->late_write_failures(), 0u);
  key.reset();
  src.reset();
  arena.reset();
}

TEST(ucxWrite, TwoSlotStreamOverTcpLandsBeforeEveryNotify) {
  run_two_slot_stream({{"tls", "tcp"}}, Lanes::one);
}

TEST(ucxWrite, TwoSlotStreamOverTcpWithoutErrorHandlingLandsBeforeEveryNotify) {
  run_two_slot_stream({{"tls", "tcp"}, {"error_handling", "none"}}, Lanes::one);
}

TEST(ucxWrite, TwoSlotStreamOverTcpFlushedPerWriteLandsBeforeEveryNotify) {
  run_two_slot_stream({{"tls", "tcp"}, {"error_handling", "none"}}, Lanes::flushed_as_several);
}

TEST(ucxWrite, TwoSlotStreamOverSmLandsBeforeEveryNotify) {
  run_two_slot_stream({{"tls", "sm"}}, Lanes::several);
}

// Length-prefixed strings over the socketpair to the child.
bool send_str(int fd, const std::string& s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  std::string frame(reinterpret_cast<const char*>(&n), 4);
  frame += s;
  for (size_t done = 0; done < frame.size();) {
    const ssize_t w = ::send(fd, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

std::optional<std::string> recv_str(int fd, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  auto read_exact = [&](char* p, size_t n) {
    for (size_t done = 0; done < n;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      pollfd pfd{fd, POLLIN, 0};
      if (::poll(&pfd, 1, static_cast<int>(left.count())) <= 0) continue;
      const ssize_t r = ::recv(fd, p + done, n - done, 0);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      done += static_cast<size_t>(r);
    }
    return true;
  };
  uint32_t n = 0;
  if (!read_exact(reinterpret_cast<char*>(&n), 4)) return std::nullopt;
  std::string s(n, '\0');
  if (!read_exact(s.data(), n)) return std::nullopt;
  return s;
}

constexpr const char* kTargetChildEnv = "EVB_UCX_WRITE_TARGET_FD";
constexpr size_t kDyingSize = 64 << 10;

// The child (this test re-executed): rank 0, the write target. It takes in
// one warm-up write, then stops progressing until it is killed.
[[noreturn]] void dying_target(int fd) {
  try {
    Config config;
    config.driver_options = {{"tls", "tcp"}, {"connect_timeout", "10"}};
    DriverContext ctx = evb::test::context_of(0, 2);
    ctx.config = &config;
    UcxDriver d(ctx, parse_ucx_options(&config));
    const std::string mine = d.local_address();
    send_str(fd, mine);
    auto theirs = recv_str(fd, std::chrono::seconds(20));
    if (!theirs) std::_Exit(4);
    d.connect({mine, *theirs}, {1});
    RegistrationPtr arena = d.allocate_memory(2 * kDyingSize, PageSize::normal);
    const auto& key = arena->packed_key();
    send_str(fd, std::string(reinterpret_cast<const char*>(key.data()), key.size()));
    Completion c[8];
    const auto until = Clock::now() + std::chrono::seconds(20);
    bool warm = false;
    while (!warm && Clock::now() < until) {
      for (size_t i = 0, n = d.poll(c); i < n; ++i) warm |= c[i].type == OpType::remote_write;
    }
    send_str(fd, warm ? "warm" : "cold");
    char byte;
    while (::read(fd, &byte, 1) != 0) {  // until the parent goes; SIGKILL first, normally
    }
  } catch (const std::exception& e) {
    send_str(fd, std::string("error: ") + e.what());
  }
  std::_Exit(0);
}

// Over tcp a put is answered by the target, so a target that does not
// progress holds every flush (taken here on every write, as to a peer of
// several lanes: over tcp's one lane the notify needs none). The writer still gets its write with
// immediate back (the puts are out of its buffer), but not a write without
// immediate (that completion is all it could pass on, so it means landed).
// Then the target process is killed: the first write's flush fails after
// its completion was reported, and the writer must hear of it as its peer
// lost, once.
TEST(ucxWrite, CompletionBeforeFlushThenTheTargetDiesAndIsReportedLost) {
  if (const char* fd = std::getenv(kTargetChildEnv)) dying_target(std::atoi(fd));
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  const std::string fd_value = std::to_string(sv[1]);
  struct Child {
    pid_t pid = -1;
    void kill_and_reap() {
      if (pid <= 0) return;
      ::kill(pid, SIGKILL);
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      pid = -1;
    }
    ~Child() { kill_and_reap(); }
  } child;
  child.pid = ::fork();
  ASSERT_GE(child.pid, 0);
  if (child.pid == 0) {
    ::close(sv[0]);
    ::fcntl(sv[1], F_SETFD, 0);
    ::setenv(kTargetChildEnv, fd_value.c_str(), 1);
    ::execl("/proc/self/exe", "/proc/self/exe",
            "--gtest_filter=ucxWrite.CompletionBeforeFlushThenTheTargetDiesAndIsReportedLost",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(sv[1]);
  const int fd = sv[0];
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};

  Config config;
  config.driver_options = {{"tls", "tcp"}, {"connect_timeout", "10"}};
  DriverContext ctx = evb::test::context_of(1, 2);
  ctx.config = &config;
  UcxDriver d(ctx, parse_ucx_options(&config));
  const std::string mine = d.local_address();
  auto theirs = recv_str(fd, std::chrono::seconds(20));
  ASSERT_TRUE(theirs) << "the child sent no address";
  ASSERT_TRUE(send_str(fd, mine));
  d.connect({*theirs, mine}, {0});
  d.flush_every_write();
  auto packed = recv_str(fd, std::chrono::seconds(20));
  ASSERT_TRUE(packed) << "the child sent no key";
  ASSERT_NE(packed->rfind("error: ", 0), 0u) << *packed;
  RemoteKeyPtr key = d.unpack_key(
      0, std::span(reinterpret_cast<const std::byte*>(packed->data()), packed->size()));
  std::vector<std::byte> data = evb::test::pattern(kDyingSize, 9);
  RegistrationPtr src = d.register_memory(data.data(), kDyingSize);
  const Segment s{data.data(), kDyingSize, src.get()};

  std::vector<Completion> got;
  auto poll_until = [&](std::chrono::milliseconds for_how_long, auto done) {
    const auto until = Clock::now() + for_how_long;
    Completion c[8];
    while (!done() && Clock::now() < until) {
      for (size_t i = 0, n = d.poll(c); i < n; ++i) got.push_back(c[i]);
    }
  };
  auto count = [&](uint64_t cookie, OpType type) {
    size_t n = 0;
    for (const Completion& c : got) n += c.cookie == cookie && c.type == type;
    return n;
  };
  auto status_of = [&](uint64_t cookie) {
    for (const Completion& c : got) {
      if (c.cookie == cookie && c.type == OpType::rdma_write) return c.status;
    }
    return OpStatus::error;
  };

  // A warm-up write the target takes in (UCX wires the put's lane up).
  d.rdma_write(0, {&s, 1}, *key, 0, 6u, 100);
  poll_until(std::chrono::seconds(20), [&] { return count(100, OpType::rdma_write) > 0; });
  ASSERT_EQ(count(100, OpType::rdma_write), 1u) << d.last_error();
  // Its flush and notify need this side's progress too.
  poll_until(std::chrono::seconds(20), [&] { return d.background_writes() == 0; });
  ASSERT_EQ(d.background_writes(), 0u) << d.last_error();
  auto warm = recv_str(fd, std::chrono::seconds(20));
  ASSERT_TRUE(warm && *warm == "warm") << (warm ? *warm : "no word from the child");

  d.rdma_write(0, {&s, 1}, *key, 0, 7u, 1);
  poll_until(std::chrono::seconds(10), [&] { return count(1, OpType::rdma_write) > 0; });
  ASSERT_EQ(count(1, OpType::rdma_write), 1u)
      << "a write with immediate did not complete while its target did not progress; "
      << d.last_error();
  EXPECT_EQ(status_of(1), OpStatus::ok) << d.last_error();
  EXPECT_EQ(d.background_writes(), 1u) << "its flush should still wait for the target";

  d.rdma_write(0, {&s, 1}, *key, kDyingSize, std::nullopt, 2);
  poll_until(std::chrono::milliseconds(300), [] { return false; });
  EXPECT_EQ(count(2, OpType::rdma_write), 0u)
      << "a write without immediate completed before the target could take its data in";

  child.kill_and_reap();
  auto lost = [&] {
    for (const Completion& c : got) {
      if (c.type == OpType::peer_event && c.peer == 0) return true;
    }
    return false;
  };
  poll_until(std::chrono::seconds(10), [&] { return lost() && count(2, OpType::rdma_write); });
  ASSERT_TRUE(lost()) << "no peer_event for the killed target; last_error: " << d.last_error();
  for (const Completion& c : got) {
    if (c.type == OpType::peer_event) {
      EXPECT_EQ(c.status, OpStatus::peer_lost);
    }
  }
  EXPECT_EQ(count(1, OpType::rdma_write), 1u) << "the first write completed again";
  ASSERT_EQ(count(2, OpType::rdma_write), 1u);
  EXPECT_NE(status_of(2), OpStatus::ok) << "a write that never landed";
  EXPECT_EQ(d.late_write_failures(), 1u);
  EXPECT_EQ(d.background_writes(), 0u);
  EXPECT_NE(d.last_error().find("rank 0"), std::string::npos) << d.last_error();
  std::printf("[ info     ] last_error: %s\n", d.last_error().c_str());

  // Afterwards a write to it fails at once.
  d.rdma_write(0, {&s, 1}, *key, 0, 8u, 3);
  poll_until(std::chrono::seconds(2), [&] { return count(3, OpType::rdma_write) > 0; });
  ASSERT_EQ(count(3, OpType::rdma_write), 1u);
  EXPECT_EQ(status_of(3), OpStatus::peer_lost);
  key.reset();
  d.shutdown();
  src.reset();
}

}  // namespace
}  // namespace evb::ucx
