// Message rate of the three poll methods (MPI_Testsome / MPI_Testany /
// MPI_Test loop) with a window of small messages to every rank. Prints
// numbers on rank 0; asserts only that everything arrived.
// EVBENCH_MPI_BENCH_MESSAGES sets messages per peer (default 3000).
#include <cstdio>
#include <cstdlib>

#include "mpi_test_util.hpp"

namespace evb::mpi::test {
namespace {

double message_rate(PollMethod method, uint32_t window, uint32_t per_peer) {
  MpiOptions o;
  o.poll_method = method;
  auto d = make_driver(o);
  const int n = world_size();
  const size_t msg = 64;
  std::vector<uint8_t> rbuf(size_t(n) * window * msg), sbuf(msg, 1);
  std::vector<uint32_t> sent(size_t(n), 0), posted(size_t(n), 0), got(size_t(n), 0);
  Segment s{sbuf.data(), msg};
  auto post_recv = [&](int p, uint32_t slot) {
    uint64_t cookie = (uint64_t(p) << 32) | slot;
    d->post_recv(p, 50, &rbuf[(size_t(p) * window + slot) * msg], msg, nullptr, cookie);
    ++posted[size_t(p)];
  };
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int p = 0; p < n; ++p) {
    for (uint32_t w = 0; w < window && w < per_peer; ++w) {
      post_recv(p, w);
      d->post_send(p, 50, std::span<const Segment>(&s, 1), (1ull << 63) | uint64_t(p));
      ++sent[size_t(p)];
    }
  }
  uint64_t total = uint64_t(n) * per_peer * 2, done = 0;
  Completion c[64];
  double deadline = t0 + 60;
  while (done < total && MPI_Wtime() < deadline) {
    size_t k = d->poll(c);
    for (size_t i = 0; i < k; ++i) {
      EXPECT_EQ(c[i].status, OpStatus::ok) << d->last_error();
      ++done;
      if (c[i].type == OpType::recv) {
        int p = int(c[i].cookie >> 32);
        ++got[size_t(p)];
        if (posted[size_t(p)] < per_peer) post_recv(p, uint32_t(c[i].cookie));
      } else {
        int p = int(c[i].cookie & 0xffffffff);
        if (sent[size_t(p)] < per_peer) {
          d->post_send(p, 50, std::span<const Segment>(&s, 1), c[i].cookie);
          ++sent[size_t(p)];
        }
      }
    }
  }
  double dt = MPI_Wtime() - t0;
  EXPECT_EQ(done, total);
  MPI_Barrier(MPI_COMM_WORLD);
  d->shutdown();
  return double(n) * per_peer / dt;  // messages received per second by this rank
}

TEST(MpiPollMethods, MessageRate) {
  uint32_t per_peer = 3000;
  if (const char* v = std::getenv("EVBENCH_MPI_BENCH_MESSAGES")) per_peer = uint32_t(std::atoi(v));
  const struct {
    PollMethod m;
    const char* name;
  } methods[] = {{PollMethod::testsome, "testsome"},
                 {PollMethod::testany, "testany"},
                 {PollMethod::test, "test"}};
  for (uint32_t window : {4u, 64u, 512u}) {
    for (const auto& m : methods) {
      double rate = message_rate(m.m, window, per_peer);
      double min_rate = 0, sum = 0;
      MPI_Reduce(&rate, &min_rate, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
      MPI_Reduce(&rate, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (world_rank() == 0) {
        std::printf(
            "# poll %-8s ranks %d window/peer %4u in-flight %5u : %9.0f msg/s/rank avg, "
            "%9.0f min\n",
            m.name, world_size(), window, 2 * window * unsigned(world_size()), sum / world_size(),
            min_rate);
      }
    }
  }
}

}  // namespace
}  // namespace evb::mpi::test
