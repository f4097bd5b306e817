/* The MPI_Alltoall reference loop for bench/*.sh.
 *
 *   alltoall_loop BLOCK_BYTES SECONDS POOL_BYTES
 *
 * Every rank calls MPI_Alltoall with BLOCK_BYTES per peer until SECONDS have
 * passed (rank 0 decides, broadcast every 16 iterations). POOL_BYTES picks
 * the buffer policy: 0 reuses one send/receive buffer pair (cache-resident);
 * otherwise send and receive buffers rotate through a pool of that size, so
 * data streams from main memory as in evbench's RU ring (`ru_buffer`).
 * Prints, on rank 0, aggregate and per-rank Gb/s counting every block a
 * rank receives (its own included, as evbench counts a node's own fragment).
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
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: alltoall_loop BLOCK_BYTES SECONDS POOL_BYTES\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t block = strtoull(argv[1], NULL, 10);
  const double seconds = atof(argv[2]);
  const size_t pool = strtoull(argv[3], NULL, 10);
  const size_t step = block * (size_t)size;
  size_t slots = pool ? pool / step : 1;
  if (slots < 1) slots = 1;
  char* send = ref_alloc(slots * step);
  char* recv = ref_alloc(slots * step);
  if (!send || !recv) MPI_Abort(MPI_COMM_WORLD, 1);
  memset(send, rank + 1, slots * step);
  memset(recv, 0, slots * step);

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  long iterations = 0;
  int go = 1;
  while (go) {
    for (int k = 0; k < 16; ++k, ++iterations) {
      const size_t s = (size_t)iterations % slots;
      MPI_Alltoall(send + s * step, (int)block, MPI_BYTE, recv + s * step, (int)block, MPI_BYTE,
                   MPI_COMM_WORLD);
    }
    if (rank == 0) go = MPI_Wtime() - t0 < seconds;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  const double elapsed = MPI_Wtime() - t0;
  double max_elapsed;
  MPI_Reduce(&elapsed, &max_elapsed, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const double per_rank = (double)iterations * step * 8.0 / max_elapsed / 1e9;
    printf(
        "alltoall ranks=%d block=%zu pool=%zu iterations=%ld seconds=%.2f per_rank_gbps=%.3f "
        "aggregate_gbps=%.3f\n",
        size, block, pool, iterations, max_elapsed, per_rank, per_rank * size);
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
