// The rendezvous at cluster scale: 1024 ranks (real RendezvousClients, one
// thread each) join at once while strangers speaking the wire protocol badly
// hold connections open or send what no rank would. Every rank must get
// through (Busy answers are retried), every stranger must be refused, and
// the collectives must then complete over all 1024.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "bootstrap/rendezvous_client.hpp"
#include "bootstrap/rendezvous_protocol.hpp"
#include "bootstrap/rendezvous_server.hpp"
#include "core/error.hpp"
#include "core/open_files.hpp"
#include "test_util.hpp"

namespace evb::boot {
namespace {

using namespace std::chrono_literals;

constexpr int kRanks = 1024;
constexpr int kSilent = 200;   // connect and say nothing: more than the strangers' slack
constexpr int kHostile = 150;  // wrong token, garbage, oversized frames, out-of-range ranks
constexpr int kLate = 10;      // the same kinds, once the ranks are in

// What a stranger's connection got back before the server closed it.
struct Answer {
  bool closed = false;  // the server closed (EOF or reset) within the bound
  std::string frames;   // every byte the server sent
};

Answer read_until_closed(int fd, Clock::time_point bound) {
  Answer a;
  char buf[512];
  std::string why;
  for (;;) {
    int rc = recv_exact(fd, buf, 1, bound, &why);
    if (rc == 1) {
      a.frames.push_back(buf[0]);
      continue;
    }
    a.closed = rc == 0;
    return a;
  }
}

// The first frame's type and text (a Reject's or Busy's reason).
std::pair<MsgType, std::string> first_frame(const std::string& bytes) {
  std::string buf = bytes, body;
  if (!take_frame(&buf, kMaxFrame, &body)) return {MsgType::bye, ""};
  MsgType t = body_type(body);
  if (t == MsgType::reject) return {t, decode_reject(body)};
  if (t == MsgType::busy) return {t, decode_busy(body)};
  return {t, ""};
}

std::string hello_frame(const std::string& token, int rank, int size) {
  Hello h;
  h.token = token;
  h.rank = rank;
  h.size = size;
  h.hostname = "stranger";
  return encode_hello(h);
}

// One hostile stranger's opening bytes, by kind.
std::string hostile_bytes(int i) {
  switch (i % 5) {
    case 0:
      return hello_frame("not-the-token", i % kRanks, kRanks);
    case 1:
      return "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    case 2:
      return std::string("\x7f\xff\xff\xff", 4);  // a 2 GiB frame announced
    case 3:
      return hello_frame("scale-run", kRanks + i, kRanks);  // the token, a rank out of range
    default:
      return encode_goodbye();  // a valid frame, but not a hello
  }
}

TEST(RendezvousScale, ThousandRanksJoinAtOnceAmongStrangers) {
  // Both ends of every connection live in this process.
  ensure_open_files(descriptor_need(2 * (kRanks + kSilent + kHostile), 1, "test", 0), "this test");
  const int sockets_before = test::socket_fds();
  std::mutex mu;
  std::string log;
  ServerOptions so;
  so.token = "scale-run";
  so.size = kRanks;
  so.join_timeout = 120s;
  so.hello_timeout = 1s;
  so.log = [&](const std::string& l) {
    std::lock_guard<std::mutex> lock(mu);
    log += l + "\n";
  };
  auto owned = std::make_unique<RendezvousServer>(so);
  RendezvousServer& server = *owned;
  server.start();

  // The silent strangers arrive first and hold their slots until their
  // hello deadline: ranks that meet a full house are told Busy.
  std::vector<Fd> silent;
  int err = 0;
  for (int i = 0; i < kSilent; ++i) {
    silent.push_back(try_connect_tcp("127.0.0.1", server.port(), &err));
    ASSERT_TRUE(silent.back().valid()) << std::strerror(err);
  }

  std::atomic<int> welcomed{0};
  std::vector<std::string> failures(kRanks);
  std::vector<std::vector<std::string>> gathered(kRanks);
  std::mutex start_mu;
  std::condition_variable start_cv;
  bool go = false;
  std::vector<std::thread> ranks;
  ranks.reserve(kRanks);
  for (int r = 0; r < kRanks; ++r) {
    ranks.emplace_back([&, r] {
      {
        std::unique_lock<std::mutex> lock(start_mu);
        start_cv.wait(lock, [&] { return go; });
      }
      try {
        ClientOptions co;
        co.port = server.port();
        co.token = "scale-run";
        co.rank = r;
        co.size = kRanks;
        co.connect_timeout = 60s;
        co.join_timeout = 120s;
        RendezvousClient c(co);
        ++welcomed;
        gathered[r] = c.allgather(std::to_string(r));
        c.barrier();
        c.goodbye();
      } catch (const std::exception& e) {
        failures[r] = e.what();
      }
    });
  }
  // The hostile strangers come with the ranks.
  std::vector<Answer> hostile(kHostile);
  std::thread strangers([&] {
    for (int i = 0; i < kHostile; ++i) {
      int e = 0;
      Fd fd = try_connect_tcp("127.0.0.1", server.port(), &e);
      if (!fd.valid()) continue;
      const std::string bytes = hostile_bytes(i);
      std::string why;
      send_all(fd.get(), bytes.data(), bytes.size(), &why);
      hostile[static_cast<size_t>(i)] = read_until_closed(fd.get(), Clock::now() + 30s);
    }
  });
  {
    std::lock_guard<std::mutex> lock(start_mu);
    go = true;
  }
  start_cv.notify_all();

  std::vector<Answer> silent_answers;
  for (auto& fd : silent) silent_answers.push_back(read_until_closed(fd.get(), Clock::now() + 30s));
  strangers.join();
  for (auto& t : ranks) t.join();
  silent.clear();
  // Strangers that come to a house no longer full: whether the flood above
  // met slots or Busy depends on timing (a loaded machine filled every slot
  // with silent strangers), these meet the checks themselves.
  std::vector<Answer> late(kLate);
  for (int i = 0; i < kLate; ++i) {
    int e = 0;
    Fd fd = try_connect_tcp("127.0.0.1", server.port(), &e);
    ASSERT_TRUE(fd.valid()) << std::strerror(e);
    const std::string bytes = hostile_bytes(i);
    std::string why;
    send_all(fd.get(), bytes.data(), bytes.size(), &why);
    late[static_cast<size_t>(i)] = read_until_closed(fd.get(), Clock::now() + 30s);
  }
  server.stop();

  // Every rank got through and saw every rank's contribution.
  EXPECT_EQ(welcomed.load(), kRanks);
  int failed = 0;
  for (int r = 0; r < kRanks; ++r) {
    if (!failures[static_cast<size_t>(r)].empty() && ++failed <= 3)
      ADD_FAILURE() << "rank " << r << ": " << failures[static_cast<size_t>(r)];
    if (!failures[static_cast<size_t>(r)].empty()) continue;
    ASSERT_EQ(gathered[static_cast<size_t>(r)].size(), static_cast<size_t>(kRanks));
    EXPECT_EQ(gathered[static_cast<size_t>(r)][kRanks - 1], std::to_string(kRanks - 1));
  }
  EXPECT_EQ(failed, 0);
  EXPECT_FALSE(server.failed());
  for (int r = 0; r < kRanks; ++r)
    EXPECT_EQ(server.rank_state(r), RendezvousServer::RankState::goodbye);

  // Every stranger was refused: closed, with at most a Reject or a Busy that
  // tells nothing of the run (not its token, not its size).
  for (const Answer& a : silent_answers) {
    EXPECT_TRUE(a.closed);
    auto [type, text] = first_frame(a.frames);
    if (!a.frames.empty()) {
      EXPECT_EQ(type, MsgType::busy) << text;
    }
  }
  int rejected = 0;
  hostile.insert(hostile.end(), late.begin(), late.end());
  for (int i = 0; i < kHostile + kLate; ++i) {
    const Answer& a = hostile[static_cast<size_t>(i)];
    EXPECT_TRUE(a.closed) << "stranger " << i;
    auto [type, text] = first_frame(a.frames);
    EXPECT_TRUE(type == MsgType::reject || type == MsgType::busy || a.frames.empty())
        << "stranger " << i << " got message type " << int(type);
    EXPECT_EQ(text.find("scale-run"), std::string::npos) << text;
    EXPECT_EQ(text.find("not-the-token"), std::string::npos) << text;
    if (type == MsgType::reject && i >= kHostile) ++rejected;
  }
  EXPECT_GT(rejected, 0);  // the late ones that deserve a Reject got one
  // The flood guard turned some ranks away (they came back), and the silent
  // strangers were closed at their hello deadline.
  EXPECT_NE(log.find("to retry"), std::string::npos) << log.substr(0, 2000);
  EXPECT_NE(log.find("no hello within 1 s"), std::string::npos) << log.substr(0, 2000);
  EXPECT_EQ(log.find("scale-run"), std::string::npos);
  owned.reset();
  EXPECT_EQ(test::socket_fds(), sockets_before);
}

}  // namespace
}  // namespace evb::boot
