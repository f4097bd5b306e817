/* The host's copy limit: N processes, each copying BLOCK-byte blocks from
 * its own POOL-byte source to its own POOL-byte destination (both rotating
 * through the pool, so the data comes from and goes to main memory, as an
 * event builder's fragments do under the memory buffer policy), for SECONDS.
 * Prints the aggregate copy rate (bytes copied per second, summed over the
 * processes, each over its own window) as
 *   copy_gbps=<Gb/s> processes=<N> block=<B> pool=<P>
 * bench/limit.sh sets each driver variant's rate against it.
 *
 *   copy_limit PROCESSES BLOCK SECONDS POOL
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* One process's share: touch both pools, say so, wait for the start byte, copy
 * until SECONDS have passed, write the bytes/s to `out`. */
static int copier(size_t block, double seconds, size_t pool, int ready_fd, int start_fd,
                  int out_fd) {
  unsigned char* src = malloc(pool);
  unsigned char* dst = malloc(pool);
  if (!src || !dst) return 1;
  memset(src, 0x5a, pool);
  memset(dst, 0, pool);
  if (write(ready_fd, "r", 1) != 1) return 1;
  char go;
  if (read(start_fd, &go, 1) != 1) return 1;
  const size_t blocks = pool / block;
  size_t i = 0, copied = 0;
  const double t0 = now_s();
  double t = t0;
  while (t - t0 < seconds) {
    for (int k = 0; k < 16; ++k, i = (i + 1) % blocks) {
      memcpy(dst + i * block, src + ((i * 7 + 3) % blocks) * block, block);
      copied += block;
    }
    t = now_s();
  }
  const double rate = copied / (t - t0);
  if (write(out_fd, &rate, sizeof rate) != (ssize_t)sizeof rate) return 1;
  return dst[block] == 0x5a ? 0 : 1; /* the copy happened */
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: copy_limit PROCESSES BLOCK SECONDS POOL\n");
    return 2;
  }
  const int n = atoi(argv[1]);
  const size_t block = strtoull(argv[2], NULL, 10);
  const double seconds = atof(argv[3]);
  const size_t pool = strtoull(argv[4], NULL, 10);
  if (n < 1 || block == 0 || pool < block || seconds <= 0) {
    fprintf(stderr, "copy_limit: PROCESSES >= 1, 0 < BLOCK <= POOL, SECONDS > 0\n");
    return 2;
  }
  int ready[2], start[2], results[2];
  if (pipe(ready) || pipe(start) || pipe(results)) return 1;
  for (int p = 0; p < n; ++p) {
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
      close(ready[0]);
      close(start[1]);
      close(results[0]);
      _exit(copier(block, seconds, pool, ready[1], start[0], results[1]));
    }
  }
  close(ready[1]);
  close(start[0]);
  close(results[1]);
  char r;
  for (int p = 0; p < n; ++p) /* every pool is touched */
    if (read(ready[0], &r, 1) != 1) return 1;
  for (int p = 0; p < n; ++p)
    if (write(start[1], "g", 1) != 1) return 1;
  double total = 0, rate;
  int got = 0;
  while (read(results[0], &rate, sizeof rate) == (ssize_t)sizeof rate) {
    total += rate;
    ++got;
  }
  int failed = 0, status;
  while (wait(&status) > 0)
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;
  if (failed || got != n) {
    fprintf(stderr, "copy_limit: %d of %d processes reported\n", got, n);
    return 1;
  }
  printf("copy_gbps=%.2f processes=%d block=%zu pool=%zu\n", total * 8 / 1e9, n, block, pool);
  return 0;
}
