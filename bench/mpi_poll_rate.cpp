// Message rate of the mpi driver's three poll methods (driver_options.poll_method:
// one MPI_Testsome, MPI_Testany until idle, MPI_Test on each request). Every
// rank keeps a window of W small messages in flight to every rank (itself
// included) and reposts as they complete. Rank 0 prints one line per method
// and window. Not a test: the figures depend on the machine and its load.
//
//   mpirun -np 2 build/bin/evbench_mpi_poll_rate [MESSAGES_PER_PEER]
//   (bench/mpi_poll_rate.sh runs it as docs/drivers/mpi.md cites it)
//
// Exits 1 when a message did not arrive or a completion carried an error.
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "drivers/mpi/mpi_driver.hpp"
#include "drivers/mpi/mpi_env.hpp"

namespace {

using evb::Completion;
using evb::OpStatus;
using evb::OpType;
using evb::Segment;
using evb::mpi::MpiDriver;
using evb::mpi::MpiOptions;
using evb::mpi::PollMethod;

constexpr evb::Tag kTag = 50;
constexpr size_t kMessage = 64;

struct Outcome {
  double rate = 0;  // messages received per second by this rank
  bool ok = true;
};

Outcome message_rate(PollMethod method, uint32_t window, uint32_t per_peer) {
  int rank = 0;
  int n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  MpiOptions options = MpiOptions::from(nullptr);
  options.poll_method = method;
  MpiDriver d(MPI_COMM_WORLD, rank, options);
  const size_t peers = static_cast<size_t>(n);
  std::vector<uint8_t> rbuf(peers * window * kMessage);
  std::vector<uint8_t> sbuf(kMessage, 1);
  std::vector<uint32_t> sent(peers, 0);
  std::vector<uint32_t> posted(peers, 0);
  const Segment seg{sbuf.data(), kMessage};
  // Receive cookies: peer << 32 | slot; send cookies: bit 63 | peer.
  auto post_recv = [&](size_t p, uint32_t slot) {
    d.post_recv(static_cast<int>(p), kTag, &rbuf[(p * window + slot) * kMessage], kMessage, nullptr,
                (uint64_t(p) << 32) | slot);
    ++posted[p];
  };
  auto post_send = [&](size_t p) {
    d.post_send(static_cast<int>(p), kTag, std::span<const Segment>(&seg, 1),
                (1ull << 63) | uint64_t(p));
    ++sent[p];
  };
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (size_t p = 0; p < peers; ++p) {
    for (uint32_t w = 0; w < window && w < per_peer; ++w) {
      post_recv(p, w);
      post_send(p);
    }
  }
  const uint64_t total = uint64_t(peers) * per_peer * 2;
  uint64_t done = 0;
  Outcome out;
  Completion c[64];
  const double deadline = t0 + 120;
  while (done < total && MPI_Wtime() < deadline) {
    const size_t k = d.poll(c);
    for (size_t i = 0; i < k; ++i) {
      ++done;
      if (c[i].status != OpStatus::ok) {
        std::fprintf(stderr, "rank %d: %s\n", rank, d.last_error().c_str());
        out.ok = false;
      }
      if (c[i].type == OpType::recv) {
        const size_t p = static_cast<size_t>(c[i].cookie >> 32);
        if (posted[p] < per_peer) post_recv(p, static_cast<uint32_t>(c[i].cookie));
      } else {
        const size_t p = static_cast<size_t>(c[i].cookie & 0xffffffff);
        if (sent[p] < per_peer) post_send(p);
      }
    }
  }
  const double dt = MPI_Wtime() - t0;
  if (done != total) {
    std::fprintf(stderr, "rank %d: %llu of %llu operations completed\n", rank,
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
    out.ok = false;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  d.shutdown();
  out.rate = double(peers) * per_peer / dt;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const uint32_t per_peer = argc > 1 ? static_cast<uint32_t>(std::atoi(argv[1])) : 3000;
  evb::mpi::MpiEnv::ensure();
  int rank = 0;
  int n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const struct {
    PollMethod method;
    const char* name;
  } methods[] = {{PollMethod::testsome, "testsome"},
                 {PollMethod::testany, "testany"},
                 {PollMethod::test, "test"}};
  if (rank == 0) {
    std::printf("# mpi_poll_rate: %d ranks, 64 B messages, %u per peer\n", n, per_peer);
    std::printf("# %-8s %6s %9s %16s %16s\n", "method", "window", "in-flight", "avg msg/s/rank",
                "min msg/s/rank");
  }
  int ok = 1;
  for (uint32_t window : {4u, 64u, 512u}) {
    for (const auto& m : methods) {
      const Outcome o = message_rate(m.method, window, per_peer);
      double min_rate = 0;
      double sum = 0;
      MPI_Reduce(&o.rate, &min_rate, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
      MPI_Reduce(&o.rate, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      ok = ok && o.ok;
      if (rank == 0)
        std::printf("  %-8s %6u %9u %16.0f %16.0f\n", m.name, window, 2 * window * unsigned(n),
                    sum / n, min_rate);
    }
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) std::printf("# %s\n", all_ok ? "OK" : "FAILED: messages lost or in error");
  return all_ok ? 0 : 1;
}
