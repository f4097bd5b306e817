#include "bootstrap/local_launcher.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "core/error.hpp"
#include "test_util.hpp"

namespace evb::boot {
namespace {

using test::no_children;
using test::socket_fds;
using test::test_config;

class LocalLauncher : public ::testing::Test {
 protected:
  void SetUp() override { sockets_ = socket_fds(); }
  void TearDown() override {
    EXPECT_TRUE(no_children());
    EXPECT_EQ(socket_fds(), sockets_);
  }
  int sockets_ = 0;
};

// Runs in the children: the return value is the child's exit status.
int check_collectives(Bootstrap& b) {
  if (b.size() != 4 || !b.all_local()) return 10;
  const std::string mine = "rank" + std::to_string(b.rank()) + std::string(b.rank() * 1000, 'z');
  auto all = b.allgather(mine);
  if (all.size() != 4) return 11;
  for (int r = 0; r < 4; ++r)
    if (all[r] != "rank" + std::to_string(r) + std::string(r * 1000, 'z')) return 12;
  b.barrier();
  auto g = b.gather(std::to_string(b.rank() * 7));
  if (b.rank() == 0) {
    if (g != std::vector<std::string>{"0", "7", "14", "21"}) return 13;
  } else if (!g.empty()) {
    return 14;
  }
  // A large round: 2 MiB per rank.
  auto big = b.allgather(std::string(2 << 20, static_cast<char>('a' + b.rank())));
  for (int r = 0; r < 4; ++r)
    if (big[r] != std::string(2 << 20, static_cast<char>('a' + r))) return 15;
  for (int i = 0; i < 20; ++i) b.barrier();
  return 0;
}

TEST_F(LocalLauncher, CollectivesWithFourRanks) {
  EXPECT_EQ(launch_local(test_config(), 4, check_collectives), 0);
}

TEST_F(LocalLauncher, SingleRank) {
  EXPECT_EQ(launch_local(test_config(), 1,
                         [](Bootstrap& b) {
                           return b.allgather("x") == std::vector<std::string>{"x"} ? 0 : 1;
                         }),
            0);
}

// Rank 2 leaves with a verdict while the others wait in a barrier it will
// never join: they are stopped (ctest's timeout is the hang guard) and the
// run ends with rank 2's code.
TEST_F(LocalLauncher, WorkerExitingNonZeroFailsTheRun) {
  testing::internal::CaptureStderr();
  int rc = launch_local(test_config(), 4, [](Bootstrap& b) {
    if (b.rank() == 2) return 5;
    b.barrier();  // never completes: rank 2 has left
    return 0;
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 5) << err;
  EXPECT_NE(err.find("rank 2 (pid "), std::string::npos) << err;
}

// True once `pid` (not our child) has exited: gone, or a zombie.
bool has_exited(pid_t pid) {
  FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return true;
  char state = '?';
  const int n = std::fscanf(f, "%*d (%*[^)]) %c", &state);
  std::fclose(f);
  return n == 1 && (state == 'Z' || state == 'X');
}

// Rank 3 exits non-zero without a goodbye (as a rank does that noticed a
// peer die), and only then is rank 1 killed: the launcher blames rank 1.
TEST_F(LocalLauncher, KilledRankIsBlamedBeforeRanksThatExitedFirst) {
  LocalOptions o;
  o.blame_grace = std::chrono::seconds(30);  // far more than rank 1 needs to die
  testing::internal::CaptureStderr();
  int rc = launch_local(
      test_config(), 4,
      [](Bootstrap& b) {
        const auto pids = b.allgather(std::to_string(::getpid()));
        b.barrier();
        if (b.rank() == 3) ::_exit(kExitRuntime);
        if (b.rank() == 1) {
          while (!has_exited(std::stoi(pids[3]))) ::usleep(1000);
          ::raise(SIGKILL);
        }
        ::pause();
        return 0;
      },
      o);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitRuntime);
  EXPECT_NE(err.find("rank 1 (pid "), std::string::npos) << err;
  EXPECT_NE(err.find("died: signal 9"), std::string::npos) << err;
  EXPECT_EQ(err.find("rank 3 (pid "), std::string::npos) << err;
}

// Without a death by signal, the rank that exited non-zero is blamed once
// the grace has passed, and its code is the run's.
TEST_F(LocalLauncher, RankExitingWithoutGoodbyeIsBlamedAfterTheGrace) {
  LocalOptions o;
  o.blame_grace = std::chrono::milliseconds(50);
  testing::internal::CaptureStderr();
  int rc = launch_local(
      test_config(), 3,
      [](Bootstrap& b) {
        b.barrier();
        if (b.rank() == 2) ::_exit(4);
        ::pause();
        return 0;
      },
      o);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 4);
  EXPECT_NE(err.find("rank 2 (pid "), std::string::npos) << err;
  EXPECT_NE(err.find("died: exited with status 4"), std::string::npos) << err;
}

TEST_F(LocalLauncher, KilledWorkerIsReportedAndTheRestReaped) {
  testing::internal::CaptureStderr();
  int rc = launch_local(test_config(), 4, [](Bootstrap& b) {
    b.barrier();
    if (b.rank() == 1) ::raise(SIGKILL);
    ::pause();  // the others would wait forever: the launcher must stop them
    return 0;
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitRuntime);
  EXPECT_NE(err.find("rank 1 (pid "), std::string::npos) << err;
  EXPECT_NE(err.find("died: signal 9"), std::string::npos) << err;
}

TEST_F(LocalLauncher, ThrowingWorkerAbortsTheOthers) {
  testing::internal::CaptureStderr();
  int rc = launch_local(test_config(), 3, [](Bootstrap& b) {
    if (b.rank() == 0) throw Error("driver tcp: cannot bind");
    b.barrier();
    return 0;
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitRuntime);
  // One failure, one line: the launcher prints rank 0's error (its abort);
  // the ranks it stopped, and the launcher's own verdict, say nothing more.
  EXPECT_EQ(err, "evbench: rank 0: driver tcp: cannot bind\n");
}

// Every rank fails at once on its own: the first error that reached the
// launcher is printed, once.
TEST_F(LocalLauncher, RanksFailingTogetherGiveOneLine) {
  LocalOptions o;
  o.blame_grace = std::chrono::milliseconds(50);
  testing::internal::CaptureStderr();
  int rc = launch_local(
      test_config(), 4,
      [](Bootstrap& b) -> int {
        b.barrier();
        throw Error("cannot listen on port 7 (rank " + std::to_string(b.rank()) + ")");
      },
      o);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitRuntime);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_EQ(err.rfind("evbench: rank ", 0), 0u) << err;
  EXPECT_NE(err.find(": cannot listen on port 7"), std::string::npos) << err;
}

TEST_F(LocalLauncher, AgreeingVerdictIsReturned) {
  int rc = launch_local(test_config(), 3, [](Bootstrap& b) {
    b.gather("result");
    return kExitIntegrity;
  });
  EXPECT_EQ(rc, kExitIntegrity);
}

TEST_F(LocalLauncher, SigintIsForwardedAndReturns130) {
  testing::internal::CaptureStderr();
  int rc = launch_local(test_config(), 3, [](Bootstrap& b) {
    b.barrier();
    if (b.rank() == 0) ::kill(::getppid(), SIGINT);
    ::pause();
    return 0;
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitInterrupted);
  EXPECT_EQ(err.rfind("evbench: interrupted", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

// Ctrl-C reaches the ranks too (one process group): they die by SIGINT
// before the launcher has taken its own, and none is blamed for it.
TEST_F(LocalLauncher, SigintToTheGroupIsOneLine) {
  testing::internal::CaptureStderr();
  int rc = launch_local(test_config(), 3, [](Bootstrap& b) {
    const auto pids = b.allgather(std::to_string(::getpid()));
    if (b.rank() == 0) {
      // What the terminal does: the launcher first, then every rank (rank 0
      // last). Not kill(0, ...): the test process shares that group.
      ::kill(::getppid(), SIGINT);
      for (int r = 2; r >= 0; --r) ::kill(std::stoi(pids[r]), SIGINT);
    }
    ::pause();
    return 0;
  });
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, kExitInterrupted);
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST_F(LocalLauncher, ChildrenDieWithTheirParent) {
  int pids[2];
  ASSERT_EQ(::pipe(pids), 0);
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);  // orphans come back to us
  pid_t mid = ::fork();
  ASSERT_GE(mid, 0);
  if (mid == 0) {
    ::close(pids[0]);
    launch_local(test_config(), 3, [&](Bootstrap& b) {
      b.barrier();
      pid_t me = ::getpid();
      [[maybe_unused]] auto n = ::write(pids[1], &me, sizeof me);
      ::pause();  // not in a collective: only PR_SET_PDEATHSIG can end it
      return 0;
    });
    ::_exit(0);
  }
  ::close(pids[1]);
  std::vector<pid_t> ranks(3);
  for (auto& p : ranks) ASSERT_EQ(::read(pids[0], &p, sizeof p), ssize_t(sizeof p));
  ::close(pids[0]);
  ::kill(mid, SIGKILL);
  ASSERT_EQ(::waitpid(mid, nullptr, 0), mid);
  // A hang guard only (PR_SET_PDEATHSIG acts at once): far above any delay.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (pid_t p : ranks) {
    int st = 0;
    pid_t r;
    while ((r = ::waitpid(p, &st, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(r, p) << "rank pid " << p << " outlived its parent";
    if (r == 0) {
      ::kill(p, SIGKILL);
      ::waitpid(p, &st, 0);
    } else {
      EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << "status " << st;
    }
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

TEST(CombineExitCodes, Rules) {
  EXPECT_EQ(combine_exit_codes({}), 0);
  EXPECT_EQ(combine_exit_codes({3, 3, 3}), 3);
  EXPECT_EQ(combine_exit_codes({1, 3}), 3);
  EXPECT_EQ(combine_exit_codes({2, 1}), 2);
}

}  // namespace
}  // namespace evb::boot
