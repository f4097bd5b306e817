// The open-file need and the check before start (core/open_files.hpp): the
// figure and its breakdown, the refusal's words, and the soft limit raised
// in a child process (so the test's own limit stays as it was).
#include "core/open_files.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"

namespace evb {
namespace {

TEST(OpenFiles, NeedCountsPeersTheProcessAndTheRendezvous) {
  const FileNeed n = descriptor_need(255, 2, "ucx", 256);
  EXPECT_EQ(n.total, 255u * 2 + kFixedDescriptors + 256);
  EXPECT_EQ(n.breakdown,
            "255 peers x 2 (driver ucx) + 64 (the process) + 256 (the rendezvous it serves)");
  EXPECT_EQ(descriptor_need(3, 0, "psm2", 0).total, kFixedDescriptors);
}

TEST(OpenFiles, RefusalNamesTheLimitTheNeedAndTheFix) {
  const FileNeed n = descriptor_need(1023, 1, "tcp", 1024);
  const std::string why = open_files_shortfall(n, FileLimit{1024, 1024}, "each rank of this run");
  EXPECT_NE(why.find("each rank of this run needs about 2111 descriptors"), std::string::npos)
      << why;
  EXPECT_NE(why.find("RLIMIT_NOFILE allows 1024 (hard limit 1024)"), std::string::npos) << why;
  EXPECT_NE(why.find("ulimit -n 4096"), std::string::npos) << why;
  EXPECT_NE(why.find("srun --propagate=NOFILE"), std::string::npos) << why;
  // Within the hard limit there is nothing to refuse: the soft one is raised.
  EXPECT_EQ(open_files_shortfall(n, FileLimit{1024, 4096}, "x"), "");
  EXPECT_EQ(open_files_shortfall(n, FileLimit{1024, UINT64_MAX}, "x"), "");
}

// In a child: lowers the soft limit, asks for more (raised), then asks for
// more than the hard limit (refused). Exit 0 when all held.
TEST(OpenFiles, SoftLimitIsRaisedAndTheHardLimitHolds) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    rlimit r{};
    ::getrlimit(RLIMIT_NOFILE, &r);
    if (r.rlim_max != RLIM_INFINITY && r.rlim_max < 600) ::_exit(10);
    r.rlim_cur = 256;
    r.rlim_max = 600;  // below any machine's: the refusal below is certain
    if (::setrlimit(RLIMIT_NOFILE, &r) != 0) ::_exit(11);
    ensure_open_files(descriptor_need(400, 1, "tcp", 0), "this rank");
    ::getrlimit(RLIMIT_NOFILE, &r);
    if (r.rlim_cur != 464) ::_exit(12);
    try {
      ensure_open_files(descriptor_need(1000, 1, "tcp", 0), "this rank");
      ::_exit(13);
    } catch (const ConfigError& e) {
      if (std::string(e.what()).find("hard limit 600") == std::string::npos) ::_exit(14);
    }
    ::getrlimit(RLIMIT_NOFILE, &r);
    ::_exit(r.rlim_cur == 464 ? 0 : 15);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace evb
