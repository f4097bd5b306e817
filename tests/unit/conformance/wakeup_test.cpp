// Contract item of blocking: a rank blocked in wait() is woken by every
// event that makes progress possible, so poll_mode block moves data about as
// fast as yield on the same traffic.
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "conformance_checks.hpp"

namespace evb::conformance {
namespace {

using std::chrono::duration;

// The traffic of one phase: every rank sends kMessages of kSize bytes to
// every other rank, kWindow sends and kWindow receives in flight per peer
// (large enough for the rendezvous protocols, where a missed wake-up of
// either side stalls the transfer).
constexpr size_t kSize = 256 * 1024;
constexpr int kMessages = 192;
constexpr int kWindow = 4;
constexpr int kRounds = 3;  // yield, block, yield, block, yield, block
// A missed wake-up or a spinning wait() showed as a tenth of yield's rate
// (ucx/sm before its fix); healthy drivers measure 0.8 to 1.3 here.
constexpr double kMinRatio = 0.5;

// Pins the calling thread to the lowest CPU it may use, and puts the old
// mask back when destroyed. Every rank pins itself alike, so the ranks share
// one core: what poll_mode block is for (more ranks than cores), and what
// makes a wait() that spins or oversleeps show on a machine of any size.
class OneCore {
 public:
  OneCore() {
    CPU_ZERO(&old_);
    ok_ = sched_getaffinity(0, sizeof old_, &old_) == 0;
    if (!ok_) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &old_)) {
        CPU_SET(c, &one);
        break;
      }
    }
    ok_ = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~OneCore() {
    if (ok_) sched_setaffinity(0, sizeof old_, &old_);
  }
  OneCore(const OneCore&) = delete;
  OneCore& operator=(const OneCore&) = delete;

 private:
  cpu_set_t old_;
  bool ok_ = false;
};

// Cookies: kind (send 1, receive 2), peer, slot.
uint64_t cookie(int kind, PeerId peer, int slot) {
  return (static_cast<uint64_t>(kind) << 32) | (static_cast<uint64_t>(peer) << 16) |
         static_cast<uint64_t>(slot);
}

// One phase of the traffic under `block` (wait() when a poll found nothing)
// or yield (sched_yield() instead), as the Engine idles. Returns its seconds,
// or a negative value after a failure (reported through gtest).
double exchange(Rank& r, bool block, Tag tag) {
  Driver& d = r.driver();
  const int size = r.size();
  const std::vector<PeerId> peers = all_but(r.rank(), size);
  Buffer& out = r.buffer(kSize, std::byte{0x42});
  const Segment seg = out.segment(0, kSize);
  std::vector<Buffer*> in;  // kWindow per peer, indexed peer * kWindow + slot
  for (int i = 0; i < size * kWindow; ++i) in.push_back(&r.buffer(kSize));
  std::vector<int> sent(size, 0), posted(size, 0);
  int recvd = 0;
  int sends_done = 0;
  const int want = kMessages * static_cast<int>(peers.size());

  r.barrier();
  Guard g(r.who() + ": " + (block ? "block" : "yield") + " phase of BlockMovesDataLikeYield",
          milliseconds(120000));
  const auto t0 = Clock::now();
  for (PeerId p : peers) {
    for (int s = 0; s < kWindow; ++s) {
      Buffer& b = *in[p * kWindow + s];
      d.post_recv(p, tag, b.data, b.size, b.reg, cookie(2, p, s));
      ++posted[p];
      d.post_send(p, tag, {&seg, 1}, cookie(1, p, s));
      ++sent[p];
    }
  }
  const auto deadline = t0 + std::chrono::seconds(60);
  Completion batch[64];
  while (recvd < want || sends_done < want) {
    const size_t n = d.poll(batch);
    for (size_t i = 0; i < n; ++i) {
      const Completion& c = batch[i];
      const auto peer = static_cast<PeerId>((c.cookie >> 16) & 0xffff);
      const int slot = static_cast<int>(c.cookie & 0xffff);
      if (c.status != OpStatus::ok || (c.type != OpType::send && c.type != OpType::recv)) {
        ADD_FAILURE() << r.who() << ": " << describe(c) << "; " << d.last_error();
        return -1;
      }
      if (c.type == OpType::send) {
        ++sends_done;
        if (sent[peer] < kMessages) {
          d.post_send(peer, tag, {&seg, 1}, c.cookie);
          ++sent[peer];
        }
        continue;
      }
      ++recvd;
      EXPECT_EQ(c.bytes, kSize) << describe(c);
      if (posted[peer] < kMessages) {
        Buffer& b = *in[peer * kWindow + slot];
        d.post_recv(peer, tag, b.data, b.size, b.reg, c.cookie);
        ++posted[peer];
      }
    }
    if (n > 0) continue;
    if (Clock::now() > deadline) {
      ADD_FAILURE() << r.who() << ": " << (block ? "block" : "yield") << " phase unfinished after"
                    << " 60 s: " << recvd << " of " << want << " received, " << sends_done << " of "
                    << want << " sent; " << d.last_error();
      return -1;
    }
    if (block)
      d.wait(std::chrono::milliseconds(10));  // as the Engine: at most until its next timer
    else
      sched_yield();
  }
  return duration<double>(Clock::now() - t0).count();
}

// 11. With more ranks than cores (all ranks pinned to one), the same
// all-to-all traffic of large messages under block (wait() whenever a poll
// finds nothing) moves at least half as many bytes per second as under yield
// (sched_yield() instead), phases alternating so that a change of load hits
// both. A wait() that sleeps through an event that made progress possible,
// or that returns at once and spins while a peer needs the core, fails it by
// a wide margin. A ratio, not a time: both rates come from the same run.
TEST_P(DriverContract, BlockMovesDataLikeYield) {
  CONFORMANCE_RUN(3, [](Rank& r) {
    if (!r.caps().can_block) {
      r.skip(
          "not applicable: the driver cannot block (Capabilities::can_block false: wait() "
          "returns at once and block runs as yield)");
      return;
    }
    OneCore pin;
    // Per round the ratio of rates (same bytes both ways: the inverse ratio
    // of times); the median of the rounds, so that one round disturbed by
    // another process on the machine does not decide.
    std::vector<double> ratios;
    double yield_s = 0, block_s = 0;
    for (int round = 0; round < kRounds; ++round) {
      const double y = exchange(r, false, static_cast<Tag>(60 + 2 * round));
      if (y < 0) return;
      const double b = exchange(r, true, static_cast<Tag>(61 + 2 * round));
      if (b < 0) return;
      ratios.push_back(y / b);
      yield_s += y;
      block_s += b;
    }
    r.barrier();
    std::sort(ratios.begin(), ratios.end());
    const double ratio = ratios[ratios.size() / 2];
    const double mb = kRounds * 1.0 * (r.size() - 1) * kMessages * kSize / 1e6;
    EXPECT_GE(ratio, kMinRatio) << r.who() << ": block moved " << mb / block_s << " MB/s, yield "
                                << mb / yield_s << " MB/s (median ratio of " << kRounds
                                << " rounds " << ratio
                                << "; a wait() that misses a wake-up or spins)";
    printf("[ RATIO    ] %s: block/yield %.2f (block %.0f MB/s, yield %.0f MB/s)\n",
           r.who().c_str(), ratio, mb / block_s, mb / yield_s);
  });
}

}  // namespace
}  // namespace evb::conformance
