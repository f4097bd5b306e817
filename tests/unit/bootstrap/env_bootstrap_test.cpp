#include "bootstrap/env_bootstrap.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <random>
#include <thread>

#include "bootstrap/socket_util.hpp"
#include "core/error.hpp"
#include "drivers/api/registry.hpp"
#include "test_util.hpp"

namespace evb {
void evb_register_bootstrap_local(PluginRegistry&);
void evb_register_bootstrap_env(PluginRegistry&);
}  // namespace evb

namespace evb::boot {
namespace {

using Env = std::map<std::string, std::string>;

EnvLookup lookup_in(const Env& env) {
  return [&env](const char* name) -> const char* {
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  };
}

std::string config_error(const Env& env) {
  try {
    parse_env_settings(lookup_in(env));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// A port for a rendezvous the test starts later. Not the kernel's pick
// (bind to port 0): ctest runs tests in parallel, and two tests asking the
// kernel at nearly the same time were seen to get the same port, so one
// test's ranks met the other's rendezvous. A random port below the
// ephemeral range (32768+), checked free, makes that a 1-in-10000 event.
int free_port() {
  static std::mt19937 rng(static_cast<uint32_t>(::getpid()) * 2654435761u ^
                          static_cast<uint32_t>(std::random_device{}()));
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int port = 20000 + static_cast<int>(rng() % 12000);
    try {
      int bound = 0;
      Fd fd = listen_tcp("127.0.0.1", port, &bound);
      return bound;
    } catch (const Error&) {
      // taken: try another
    }
  }
  int port = 0;
  Fd fd = listen_tcp("127.0.0.1", 0, &port);
  return port;
}

TEST(EnvSettings, Precedence) {
  Env env = {{"PMI_RANK", "4"},
             {"PMI_SIZE", "8"},
             {"OMPI_COMM_WORLD_RANK", "3"},
             {"OMPI_COMM_WORLD_SIZE", "7"},
             {"SLURM_PROCID", "2"},
             {"SLURM_NTASKS", "6"},
             {"EVBENCH_RANK", "1"},
             {"EVBENCH_SIZE", "5"},
             {"EVBENCH_RENDEZVOUS", "node1:7777"},
             {"EVBENCH_RUN_ID", "t"}};
  auto s = parse_env_settings(lookup_in(env));
  EXPECT_EQ(s.rank, 1);
  EXPECT_EQ(s.size, 5);
  EXPECT_EQ(s.size_var, "EVBENCH_SIZE");
  EXPECT_EQ(s.host, "node1");
  EXPECT_EQ(s.port, 7777);
  env.erase("EVBENCH_RANK");
  env.erase("EVBENCH_SIZE");
  s = parse_env_settings(lookup_in(env));
  EXPECT_EQ(s.rank, 2);
  EXPECT_EQ(s.size_var, "SLURM_NTASKS");
  env.erase("SLURM_PROCID");
  env.erase("SLURM_NTASKS");
  s = parse_env_settings(lookup_in(env));
  EXPECT_EQ(s.rank, 3);
  EXPECT_EQ(s.size, 7);
  env.erase("OMPI_COMM_WORLD_RANK");
  env.erase("OMPI_COMM_WORLD_SIZE");
  s = parse_env_settings(lookup_in(env));
  EXPECT_EQ(s.rank, 4);
  EXPECT_EQ(s.size_var, "PMI_SIZE");
}

TEST(EnvSettings, NothingSetIsOneRank) {
  auto s = parse_env_settings(lookup_in({}));
  EXPECT_EQ(s.rank, 0);
  EXPECT_EQ(s.size, 1);
  EXPECT_EQ(s.token, "");
}

// No guessable default token (a Slurm job id is visible to every user): a run
// of several ranks needs EVBENCH_RUN_ID, and the error does not invent one.
TEST(EnvSettings, RunToken) {
  Env env = {{"SLURM_JOB_ID", "123"},
             {"SLURM_STEP_ID", "4"},
             {"SLURM_PROCID", "1"},
             {"SLURM_NTASKS", "2"},
             {"EVBENCH_RENDEZVOUS", "h:7777"}};
  std::string err = config_error(env);
  EXPECT_NE(err.find("EVBENCH_RUN_ID is not set"), std::string::npos) << err;
  EXPECT_EQ(err.find("123"), std::string::npos) << err;
  env["EVBENCH_RUN_ID"] = "mine";
  EXPECT_EQ(parse_env_settings(lookup_in(env)).token, "mine");
}

TEST(EnvSettings, Errors) {
  EXPECT_NE(config_error({{"EVBENCH_RANK", "1"}, {"EVBENCH_SIZE", "5"}})
                .find("EVBENCH_RENDEZVOUS is not set"),
            std::string::npos);
  EXPECT_NE(config_error({{"SLURM_PROCID", "1"}}).find("SLURM_PROCID is set but SLURM_NTASKS"),
            std::string::npos);
  EXPECT_NE(config_error({{"EVBENCH_RANK", "x"}, {"EVBENCH_SIZE", "2"}})
                .find("EVBENCH_RANK=\"x\" is not a non-negative integer"),
            std::string::npos);
  EXPECT_NE(config_error({{"EVBENCH_RANK", "5"}, {"EVBENCH_SIZE", "5"}}).find("out of range"),
            std::string::npos);
  EXPECT_NE(
      config_error(
          {{"EVBENCH_RANK", "0"}, {"EVBENCH_SIZE", "2"}, {"EVBENCH_RENDEZVOUS", "nohostport"}})
          .find("EVBENCH_RENDEZVOUS=\"nohostport\""),
      std::string::npos);
}

TEST(EnvSettings, SizeMustMatchTheConfig) {
  Config c;
  c.nodes = 4;
  EnvSettings s;
  s.size = 3;
  s.size_var = "EVBENCH_SIZE";
  try {
    check_env_size(s, c, 5);
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "EVBENCH_SIZE=3 but the config needs 5 processes (nodes=4, layout=rubu, "
                 "evm=dedicated)");
  }
  EXPECT_NO_THROW(check_env_size(s, c, 3));
}

TEST(EnvBootstrap, SingleRankNeedsNoRendezvous) {
  EnvSettings s;
  EXPECT_EQ(launch_env(
                test::test_config(), 1,
                [](Bootstrap& b) {
                  return b.gather("r") == std::vector<std::string>{"r"} && b.all_local() ? 0 : 1;
                },
                s),
            0);
}

// Four ranks as threads of this process, each with its own settings.
TEST(EnvBootstrap, ThreadsOnLoopback) {
  int sockets = test::socket_fds();
  const int port = free_port();
  int codes[4] = {-1, -1, -1, -1};
  std::vector<std::thread> ranks;
  for (int r = 0; r < 4; ++r) {
    ranks.emplace_back([&, r] {
      if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));  // starts last
      Env env = {{"EVBENCH_RANK", std::to_string(r)},
                 {"EVBENCH_SIZE", "4"},
                 {"EVBENCH_RENDEZVOUS", "127.0.0.1:" + std::to_string(port)},
                 {"EVBENCH_RUN_ID", "threads"}};
      auto s = parse_env_settings(lookup_in(env));
      codes[r] = launch_env(
          test::test_config(), 4,
          [](Bootstrap& b) {
            auto all = b.allgather(std::to_string(b.rank() + 10));
            if (all != std::vector<std::string>{"10", "11", "12", "13"}) return 10;
            if (!b.all_local()) return 11;
            b.barrier();
            auto g = b.gather("g" + std::to_string(b.rank()));
            if (b.rank() == 0 && g.size() != 4) return 12;
            return 0;
          },
          s);
    });
  }
  for (auto& t : ranks) t.join();
  for (int r = 0; r < 4; ++r) EXPECT_EQ(codes[r], 0) << "rank " << r;
  EXPECT_EQ(test::socket_fds(), sockets);
}

// Three ranks as forked processes going through the registered `env` factory
// with real environment variables, as under srun.
TEST(EnvBootstrap, ProcessesThroughTheRegisteredFactory) {
  PluginRegistry reg;
  evb_register_bootstrap_env(reg);
  evb_register_bootstrap_local(reg);
  ASSERT_NE(reg.bootstrap("local"), nullptr);
  const BootstrapFactory* env = reg.bootstrap("env");
  ASSERT_NE(env, nullptr);
  const int port = free_port();
  std::vector<pid_t> pids;
  for (int r = 0; r < 3; ++r) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::alarm(60);  // hang guard: no rank outlives a stuck test
      ::setenv("SLURM_PROCID", std::to_string(r).c_str(), 1);
      ::setenv("SLURM_NTASKS", "3", 1);
      ::setenv("SLURM_JOB_ID", "77", 1);
      ::setenv("EVBENCH_RUN_ID", "f00d", 1);
      ::setenv("EVBENCH_RENDEZVOUS", ("localhost:" + std::to_string(port)).c_str(), 1);
      int code = 30;
      try {
        code = env->launch(test::test_config(), 3, [r](Bootstrap& b) {
          if (b.rank() != r) return 11;  // the rank comes from SLURM_PROCID
          if (b.size() != 3 || !b.all_local()) return 12;
          auto all = b.allgather(std::string(100000, char('0' + b.rank())));
          for (int q = 0; q < 3; ++q)
            if (all[q] != std::string(100000, char('0' + q))) return 10;
          auto g = b.gather(std::to_string(b.rank()));
          if (b.rank() == 0 && g != std::vector<std::string>{"0", "1", "2"}) return 13;
          return 0;
        });
      } catch (...) {
        code = 31;
      }
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  for (int r = 0; r < 3; ++r) {
    int st = 0;
    ::waitpid(pids[r], &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "rank " << r << " status " << st;
  }
  EXPECT_TRUE(test::no_children());
}

}  // namespace
}  // namespace evb::boot
