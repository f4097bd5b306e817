/* The point-to-point reference loop for bench/reference.sh: what OSU's
 * osu_bibw measures (a window of non-blocking sends and receives, then one
 * wait for all), on N ranks with a shift, the pattern of evbench's
 * `one-to-one` micro-benchmark.
 *
 *   p2p_loop BLOCK_BYTES SECONDS POOL_BYTES WINDOW SHIFT [ONEWAY]
 *
 * Rank r sends to (r + SHIFT) mod N and receives from (r - SHIFT) mod N,
 * WINDOW messages of BLOCK_BYTES each way per round, until SECONDS have passed
 * (rank 0 decides, broadcast every 8 rounds). POOL_BYTES picks the buffer
 * policy: 0 reuses one send and one receive buffer for every message of a
 * window (OSU's policy: the data stays in cache); otherwise messages rotate
 * through send and receive pools of that size, so data streams from main
 * memory as with evbench's `ru_buffer`. Prints, on rank 0, aggregate and
 * per-rank Gb/s counting the bytes each rank receives.
 *
 * ONEWAY 1 (bench/drivers.sh `tools`, beside one-to-one with senders 1):
 * only rank 0 sends, only rank SHIFT receives (others idle), WINDOW messages
 * per round each posted before the round's wait, as a plain
 * MPI_Isend/MPI_Irecv loop; aggregate = the receiver's Gb/s.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_alloc.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 6 && argc != 7) {
    if (rank == 0)
      fprintf(stderr, "usage: p2p_loop BLOCK_BYTES SECONDS POOL_BYTES WINDOW SHIFT [ONEWAY]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t block = strtoull(argv[1], NULL, 10);
  const double seconds = atof(argv[2]);
  const size_t pool = strtoull(argv[3], NULL, 10);
  const int window = atoi(argv[4]);
  const int shift = atoi(argv[5]);
  const int oneway = argc == 7 && atoi(argv[6]) != 0;
  if (block == 0 || block > (size_t)0x7fffffff || window < 1 || window > 4096 || shift < 1 ||
      shift >= size) {
    if (rank == 0)
      fprintf(stderr,
              "p2p_loop: need 0 < BLOCK < 2 GiB, 1 <= WINDOW <= 4096, 1 <= SHIFT < ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t slots = pool ? (pool / block > 0 ? pool / block : 1) : 1;
  char* send = ref_alloc(slots * block);
  char* recv = ref_alloc(slots * block);
  MPI_Request* requests = malloc(sizeof(MPI_Request) * 2 * (size_t)window);
  if (!send || !recv || !requests) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(send, rank + 1, slots * block);
  memset(recv, 0, slots * block);
  const int to = (rank + shift) % size;
  const int from = (rank - shift + size) % size;
  const int sends = !oneway || rank == 0, receives = !oneway || rank == shift;

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  long messages = 0;
  size_t next = 0;
  int go = 1;
  while (go) {
    for (int round = 0; round < 8; ++round) {
      for (int k = 0; k < window; ++k) {
        const size_t s = pool ? next++ % slots : 0;
        requests[k] = requests[window + k] = MPI_REQUEST_NULL;
        if (receives)
          MPI_Irecv(recv + s * block, (int)block, MPI_BYTE, from, 1, MPI_COMM_WORLD, &requests[k]);
        if (sends)
          MPI_Isend(send + s * block, (int)block, MPI_BYTE, to, 1, MPI_COMM_WORLD,
                    &requests[window + k]);
      }
      MPI_Waitall(2 * window, requests, MPI_STATUSES_IGNORE);
      messages += window;
    }
    if (rank == 0) go = MPI_Wtime() - t0 < seconds;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  const double elapsed = MPI_Wtime() - t0;
  double max_elapsed;
  MPI_Reduce(&elapsed, &max_elapsed, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const double per_rank = (double)messages * block * 8.0 / max_elapsed / 1e9;
    printf(
        "p2p ranks=%d block=%zu pool=%zu window=%d shift=%d messages=%ld seconds=%.2f "
        "per_rank_gbps=%.3f aggregate_gbps=%.3f%s\n",
        size, block, pool, window, shift, messages, max_elapsed, per_rank,
        oneway ? per_rank : per_rank * size, oneway ? " oneway=1" : "");
  }
  free(requests);
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
