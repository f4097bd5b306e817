#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mutex>
#include <thread>

#include "bootstrap/rendezvous_client.hpp"
#include "bootstrap/rendezvous_protocol.hpp"
#include "bootstrap/rendezvous_server.hpp"
#include "core/error.hpp"
#include "test_util.hpp"

namespace evb::boot {
namespace {

using namespace std::chrono_literals;

class Rendezvous : public ::testing::Test {
 protected:
  void SetUp() override { sockets_ = test::socket_fds(); }
  void TearDown() override {
    EXPECT_TRUE(test::no_children());
    EXPECT_EQ(test::socket_fds(), sockets_);
  }

  ServerOptions server_options(int size) {
    ServerOptions o;
    o.token = "run-1";
    o.size = size;
    o.join_timeout = 5s;
    o.log = [this](const std::string& l) {
      std::lock_guard<std::mutex> lock(mu_);
      log_ += l + "\n";
    };
    return o;
  }
  ClientOptions client_options(int port, int rank, int size) {
    ClientOptions o;
    o.port = port;
    o.token = "run-1";
    o.rank = rank;
    o.size = size;
    o.connect_timeout = 5s;
    o.join_timeout = 5s;
    return o;
  }
  std::string log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }

  int sockets_ = 0;
  std::mutex mu_;
  std::string log_;
};

int wait_exit(pid_t pid) {
  int st = 0;
  ::waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

// Ranks are forked processes; rank 3 dies (without goodbye) while the others
// wait for it in a collective. Each survivor exits 0 iff it got a PeerError
// naming rank 3.
TEST_F(Rendezvous, RankDyingMidCollectiveIsNamed) {
  RendezvousServer server(server_options(4));
  std::vector<pid_t> pids;
  for (int r = 0; r < 4; ++r) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      server.abandon_in_child();
      int code = 20;
      try {
        RendezvousClient c(client_options(server.port(), r, 4));
        c.allgather("hello");
        if (r == 3) {
          std::this_thread::sleep_for(200ms);
          ::_exit(0);  // dies: the kernel closes the socket, no goodbye
        }
        c.allgather("never completes");
        code = 21;
      } catch (const PeerError& e) {
        code = (e.peer() == 3 &&
                std::string(e.what()) == "bootstrap: rank 3 disappeared (connection closed)")
                   ? 0
                   : 22;
      } catch (...) {
        code = 23;
      }
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  server.start();
  for (int r = 0; r < 4; ++r) EXPECT_EQ(wait_exit(pids[r]), 0) << "rank " << r;
  EXPECT_TRUE(server.failed());
  EXPECT_TRUE(server.wait_all_left(1s));
  server.stop();
  EXPECT_NE(log().find("rank 3 disappeared"), std::string::npos) << log();
}

// on_failure exclude (tolerate_loss): rank 3 dies mid-collective; the round
// completes without it (its contribution empty) and so does the next one.
// Each survivor exits 0 iff rank 0 got every value but rank 3's.
TEST_F(Rendezvous, ToleratedLossCompletesRoundsWithoutTheRank) {
  ServerOptions so = server_options(4);
  so.tolerate_loss = true;
  RendezvousServer server(so);
  std::vector<pid_t> pids;
  for (int r = 0; r < 4; ++r) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      server.abandon_in_child();
      int code = 20;
      try {
        RendezvousClient c(client_options(server.port(), r, 4));
        c.allgather("hello");
        if (r == 3) {
          std::this_thread::sleep_for(200ms);
          ::_exit(0);  // dies: no goodbye
        }
        const auto all = c.gather("v" + std::to_string(r));
        c.barrier();
        code = 0;
        if (r == 0) code = all == std::vector<std::string>{"v0", "v1", "v2", ""} ? 0 : 24;
      } catch (...) {
        code = 23;
      }
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  server.start();
  for (int r = 0; r < 4; ++r) EXPECT_EQ(wait_exit(pids[r]), 0) << "rank " << r;
  EXPECT_FALSE(server.failed());
  EXPECT_EQ(server.rank_state(3), RendezvousServer::RankState::lost);
  server.stop();
  EXPECT_NE(log().find("rank 3 lost"), std::string::npos) << log();
}

// Clients in threads: a stray client with a wrong token, a duplicate rank and
// an out-of-range rank are rejected while the real run completes.
TEST_F(Rendezvous, StrayClientsAreRejectedAndTheRunCompletes) {
  RendezvousServer server(server_options(3));
  server.start();
  std::vector<std::string> results[3];
  std::vector<std::thread> ranks;
  for (int r = 0; r < 3; ++r) {
    ranks.emplace_back([&, r] {
      if (r == 2) std::this_thread::sleep_for(300ms);  // strays arrive first
      RendezvousClient c(client_options(server.port(), r, 3));
      results[r] = c.allgather(std::to_string(r));
      c.barrier();
    });
  }
  auto stray = [&](const std::string& token, int rank) -> std::string {
    auto o = client_options(server.port(), rank, 3);
    o.token = token;
    try {
      RendezvousClient c(o);
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  };
  std::this_thread::sleep_for(100ms);
  std::string bad_token = stray("other-run", 2);
  std::string out_of_range = stray("run-1", 7);
  for (auto& t : ranks) t.join();
  std::string duplicate = stray("run-1", 0);
  server.stop();

  EXPECT_NE(bad_token.find("wrong run token"), std::string::npos) << bad_token;
  // Never what the stranger should have said (nor an echo of what it said).
  EXPECT_EQ(bad_token.find("run-1"), std::string::npos) << bad_token;
  EXPECT_EQ(bad_token.find("other-run"), std::string::npos) << bad_token;
  EXPECT_EQ(log().find("run-1"), std::string::npos) << log();
  EXPECT_NE(out_of_range.find("rank 7 out of range 0..2"), std::string::npos) << out_of_range;
  EXPECT_NE(duplicate.find("rank 0 has already joined"), std::string::npos) << duplicate;
  for (int r = 0; r < 3; ++r) EXPECT_EQ(results[r], (std::vector<std::string>{"0", "1", "2"}));
  EXPECT_FALSE(server.failed());
  EXPECT_NE(log().find("rejected connection from 127.0.0.1:"), std::string::npos) << log();
}

TEST_F(Rendezvous, GarbageConnectionIsRejected) {
  RendezvousServer server(server_options(1));
  server.start();
  int err = 0;
  Fd fd = try_connect_tcp("127.0.0.1", server.port(), &err);
  ASSERT_TRUE(fd.valid());
  std::string http = "GET / HTTP/1.0\r\n\r\n", why;
  ASSERT_TRUE(send_all(fd.get(), http.data(), http.size(), &why));
  char buf[4];
  // The server answers (a reject) and closes; it does not hang or crash.
  int rc = recv_exact(fd.get(), buf, 4, Clock::now() + 3s, &why);
  EXPECT_NE(rc, -1);
  fd.reset();
  RendezvousClient c(client_options(server.port(), 0, 1));
  EXPECT_EQ(c.gather("x"), std::vector<std::string>{"x"});
  c.goodbye();
  server.stop();
  EXPECT_NE(log().find("not an evbench rendezvous client"), std::string::npos) << log();
}

// True when the server closes `fd` (EOF or reset) before a generous bound.
bool closed_by_server(int fd) {
  std::string why;
  char buf[256];
  for (;;) {
    int rc = recv_exact(fd, buf, 1, Clock::now() + 10s, &why);
    if (rc != 1) return rc == 0;  // -1: still open at the bound
  }
}

// Silent clients beyond the ranks still to join plus the strangers' slack are
// told Busy and closed on accept, the others at their hello deadline; the
// real rank still joins.
TEST_F(Rendezvous, UnidentifiedConnectionsAreLimitedInNumberAndTime) {
  auto so = server_options(1);
  so.stranger_slack = 1;  // 1 rank to join + 1
  so.hello_timeout = 200ms;
  RendezvousServer server(so);
  server.start();
  std::vector<Fd> silent;
  int err = 0;
  for (int i = 0; i < 5; ++i) {
    silent.push_back(try_connect_tcp("127.0.0.1", server.port(), &err));
    ASSERT_TRUE(silent.back().valid());
  }
  for (auto& fd : silent) EXPECT_TRUE(closed_by_server(fd.get()));
  silent.clear();
  RendezvousClient c(client_options(server.port(), 0, 1));
  EXPECT_EQ(c.gather("x"), std::vector<std::string>{"x"});
  c.goodbye();
  server.stop();
  EXPECT_NE(log().find("to retry: 2 connections are waiting to identify themselves"),
            std::string::npos)
      << log();
  EXPECT_NE(log().find("no hello within"), std::string::npos) << log();
}

TEST_F(Rendezvous, AbortIsRelayedToEveryRank) {
  RendezvousServer server(server_options(3));
  server.start();
  std::string seen[3];
  std::vector<std::thread> ranks;
  for (int r = 0; r < 3; ++r) {
    ranks.emplace_back([&, r] {
      RendezvousClient c(client_options(server.port(), r, 3));
      if (r == 1) {
        c.abort("out of memory");
        return;
      }
      try {
        c.barrier();
      } catch (const PeerError& e) {
        seen[r] = std::to_string(e.peer()) + ": " + e.what();
      }
    });
  }
  for (auto& t : ranks) t.join();
  server.stop();
  EXPECT_EQ(seen[0], "1: bootstrap: rank 1 aborted: out of memory");
  EXPECT_EQ(seen[2], "1: bootstrap: rank 1 aborted: out of memory");
}

TEST_F(Rendezvous, MismatchedCollectivesFail) {
  RendezvousServer server(server_options(2));
  server.start();
  std::string seen[2];
  std::vector<std::thread> ranks;
  for (int r = 0; r < 2; ++r) {
    ranks.emplace_back([&, r] {
      RendezvousClient c(client_options(server.port(), r, 2));
      try {
        if (r == 0)
          c.barrier();
        else
          c.allgather("x");
      } catch (const Error& e) {
        seen[r] = e.what();
      }
    });
  }
  for (auto& t : ranks) t.join();
  server.stop();
  for (auto& s : seen) EXPECT_NE(s.find("collective mismatch"), std::string::npos) << s;
}

TEST_F(Rendezvous, MissingRankTimesOutAtJoin) {
  auto so = server_options(2);
  so.join_timeout = 500ms;
  RendezvousServer server(so);
  server.start();
  std::string what;
  try {
    RendezvousClient c(client_options(server.port(), 0, 2));
  } catch (const Error& e) {
    what = e.what();
  }
  server.stop();
  EXPECT_NE(what.find("waiting for rank(s) 1 to join"), std::string::npos) << what;
  EXPECT_NE(what.find("(1 of 2 joined)"), std::string::npos) << what;
}

TEST_F(Rendezvous, ClientGivesUpConnectingWithAClearMessage) {
  int port;
  { Fd probe = listen_tcp("127.0.0.1", 0, &port); }  // closed: nothing listens there now
  auto o = client_options(port, 1, 2);
  o.connect_timeout = 300ms;
  try {
    RendezvousClient c(o);
    FAIL() << "connected to a closed port";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect to the rendezvous at 127.0.0.1:"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace evb::boot
