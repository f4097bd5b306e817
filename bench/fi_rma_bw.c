/* fi_rma_bw: one-sided write bandwidth of one libfabric pair, the RMA
 * counterpart of fi_pingpong (libfabric-bin has no RMA benchmark). The
 * client writes `size` bytes from one reused buffer into one reused window
 * of the server, `window` writes in flight, for `seconds` after a warm-up of
 * a tenth of that. Each write carries remote CQ data, as evbench's writes
 * carry their immediate, and the server busy-polls its CQ and counts the
 * writes that landed: the target learns of every write, as evbench's BU does.
 * A write completes at the client when the provider says so by default
 * (transmit complete, what evbench's libfabric driver asks for); -d asks for
 * delivery completion instead (the bytes are in the target's memory before
 * the next write may start in the window's place; on shm that costs the
 * client a round trip per write, and was this tool's only mode until it lost
 * to the driver it measures). The server stops at the client's "done"
 * message. With -c N the server also sends the client a 16-byte message
 * after every N writes that landed, as evbench's receiver returns a credit
 * per N freed slots (the client takes them in and waits for none of them:
 * only the traffic back is added); with -e as well those messages travel on a
 * second endpoint (so on their own connection over tcp;ofi_rxm), not on the
 * one that carries the writes (docs/drivers/libfabric.md, "What the receiver
 * sends back"). The buffer (one on each side) follows EVB_REF_PAGES as the other
 * reference loops do (bench/ref_alloc.h). Addresses and the window's key are
 * exchanged over a TCP socket on 127.0.0.1:port. Built and run by bench/drivers.sh:
 *
 *   fi_rma_bw -p shm -s 524288 -t 5 -W 1 -P 47950            (server)
 *   fi_rma_bw -p shm -s 524288 -t 5 -W 1 -P 47950 127.0.0.1  (client)
 *   (-c N on both sides: a message back every N writes; -e: on a second endpoint)
 *
 * The client prints "size=... window=... writes=... seconds=... gbps=...
 * delivery_complete=0|1" (gbps: bytes written in the measured time x 8 /
 * 10^9); the server prints "landed=N" (writes whose CQ data it read). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ref_alloc.h"

#define CHECK(call)                                                     \
  do {                                                                  \
    int rc_ = (int)(call);                                              \
    if (rc_ < 0) {                                                      \
      fprintf(stderr, "fi_rma_bw: %s: %s\n", #call, fi_strerror(-rc_)); \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

struct info { /* what the server tells the client */
  uint64_t key, addr, size;
  size_t name_len;
  char name[256];
  size_t back_name_len; /* the endpoint of the messages back (-e) */
  char back_name[256];
};

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The TCP socket the two sides exchange their addresses over. */
static int side_channel(const char* server, int port) {
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
  int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  inet_pton(AF_INET, server ? server : "127.0.0.1", &a.sin_addr);
  if (!server) {
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(s, (struct sockaddr*)&a, sizeof a) || listen(s, 1)) {
      perror("fi_rma_bw: bind");
      exit(1);
    }
    int c = accept(s, NULL, NULL);
    close(s);
    return c;
  }
  for (int i = 0; i < 100; ++i) { /* the server may not listen yet */
    if (connect(s, (struct sockaddr*)&a, sizeof a) == 0) return s;
    nanosleep(&(struct timespec){.tv_nsec = 50000000}, NULL);
  }
  perror("fi_rma_bw: connect");
  exit(1);
}

static void xfer(int fd, void* p, size_t n, int out) {
  for (size_t done = 0; done < n;) {
    ssize_t r = out ? write(fd, (char*)p + done, n - done) : read(fd, (char*)p + done, n - done);
    if (r <= 0) {
      fprintf(stderr, "fi_rma_bw: side channel closed\n");
      exit(1);
    }
    done += (size_t)r;
  }
}

/* Waits for one completion on `cq` (busy polling, as the tools do). */
static void wait_cq(struct fid_cq* cq) {
  struct fi_cq_data_entry e;
  for (;;) {
    ssize_t r = fi_cq_read(cq, &e, 1);
    if (r == 1) return;
    if (r != -FI_EAGAIN) {
      struct fi_cq_err_entry err = {0};
      fi_cq_readerr(cq, &err, 0);
      fprintf(stderr, "fi_rma_bw: completion error: %s\n", fi_strerror(err.err));
      exit(1);
    }
  }
}

int main(int argc, char** argv) {
  const char *prov = "shm", *server = NULL;
  size_t size = 524288;
  double seconds = 5;
  int window = 1, port = 47950, delivery = 0, every = 0, own_ep = 0, opt;
  while ((opt = getopt(argc, argv, "p:s:t:W:P:dc:e")) != -1) {
    if (opt == 'p')
      prov = optarg;
    else if (opt == 's')
      size = strtoull(optarg, NULL, 0);
    else if (opt == 't')
      seconds = atof(optarg);
    else if (opt == 'W')
      window = atoi(optarg);
    else if (opt == 'P')
      port = atoi(optarg);
    else if (opt == 'd')
      delivery = 1;
    else if (opt == 'c')
      every = atoi(optarg);
    else if (opt == 'e')
      own_ep = 1;
    else
      return fprintf(stderr,
                     "usage: fi_rma_bw -p PROV -s SIZE -t S -W N -P PORT [-d] [-c N [-e]] "
                     "[server]\n"),
             2;
  }
  if (optind < argc) server = argv[optind];

  struct fi_info *hints = fi_allocinfo(), *fi = NULL;
  hints->caps = FI_MSG | FI_RMA;
  hints->ep_attr->type = FI_EP_RDM;
  hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
  hints->fabric_attr->prov_name = strdup(prov);
  hints->tx_attr->op_flags = delivery ? FI_DELIVERY_COMPLETE : 0;
  uint64_t flags = FI_COMPLETION | FI_REMOTE_CQ_DATA | (delivery ? FI_DELIVERY_COMPLETE : 0);
  if (fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &fi)) {
    hints->tx_attr->op_flags = 0;
    flags &= ~(uint64_t)FI_DELIVERY_COMPLETE;
    CHECK(fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &fi));
  }
  struct fid_fabric* fabric;
  struct fid_domain* domain;
  struct fid_av* av;
  struct fid_cq* cq;
  struct fid_ep* ep;
  struct fid_mr* mr;
  struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA, .size = 1024};
  struct fi_av_attr av_attr = {.type = FI_AV_UNSPEC};
  CHECK(fi_fabric(fi->fabric_attr, &fabric, NULL));
  CHECK(fi_domain(fabric, fi, &domain, NULL));
  CHECK(fi_av_open(domain, &av_attr, &av, NULL));
  CHECK(fi_cq_open(domain, &cq_attr, &cq, NULL));
  CHECK(fi_endpoint(domain, fi, &ep, NULL));
  CHECK(fi_ep_bind(ep, &av->fid, 0));
  CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV));
  CHECK(fi_enable(ep));
  struct fid_ep* bep = ep; /* the messages back: on the writes' endpoint, or (-e) their own */
  if (own_ep) {
    CHECK(fi_endpoint(domain, fi, &bep, NULL));
    CHECK(fi_ep_bind(bep, &av->fid, 0));
    CHECK(fi_ep_bind(bep, &cq->fid, FI_TRANSMIT | FI_RECV));
    CHECK(fi_enable(bep));
  }

  char* buf = ref_alloc(size); /* EVB_REF_PAGES=huge: as evbench's page_size huge */
  if (!buf) return fprintf(stderr, "fi_rma_bw: no memory\n"), 1;
  enum { kBack = 16, kBackPosted = 16 };
  static char back[kBack * kBackPosted]; /* the messages back (-c): sent or received */
  struct fid_mr* back_mr;
  CHECK(fi_mr_reg(domain, back, sizeof back, FI_SEND | FI_RECV, 0, 2, 0, &back_mr, NULL));
  void* back_desc = fi_mr_desc(back_mr);
  memset(buf, 0x5a, size);
  CHECK(fi_mr_reg(domain, buf, size, FI_WRITE | FI_REMOTE_WRITE | FI_SEND | FI_RECV, 0, 1, 0, &mr,
                  NULL));
  void* desc = fi_mr_desc(mr);
  struct info me = {.key = fi_mr_key(mr), .size = size, .name_len = sizeof me.name};
  me.addr = (fi->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
  CHECK(fi_getname(&ep->fid, me.name, &me.name_len));
  me.back_name_len = sizeof me.back_name;
  CHECK(fi_getname(&bep->fid, me.back_name, &me.back_name_len));

  int fd = side_channel(server, port);
  struct info peer;
  xfer(fd, &me, sizeof me, 1);
  xfer(fd, &peer, sizeof peer, 0);
  fi_addr_t to;
  fi_addr_t back_to;
  if (fi_av_insert(av, peer.name, 1, &to, 0, NULL) != 1 ||
      (own_ep && fi_av_insert(av, peer.back_name, 1, &back_to, 0, NULL) != 1))
    return fprintf(stderr, "fi_av_insert\n"), 1;
  if (!own_ep) back_to = to;

  if (!server) { /* count the writes that land until the client's "done" */
    CHECK(fi_recv(ep, buf, 1, desc, to, NULL));
    unsigned long landed = 0, owed = 0, in_flight = 0;
    for (int finished = 0; !finished;) {
      while (owed && in_flight < kBackPosted) { /* -c: the messages back */
        ssize_t s = fi_send(bep, back + in_flight * kBack, kBack, back_desc, back_to, NULL);
        if (s == -FI_EAGAIN) break;
        CHECK(s);
        --owed, ++in_flight;
      }
      struct fi_cq_data_entry e[16];
      ssize_t r = fi_cq_read(cq, e, 16);
      if (r == -FI_EAGAIN) continue;
      if (r < 0) wait_cq(cq); /* reports the error and exits */
      for (ssize_t i = 0; i < r; ++i) {
        if (e[i].flags & FI_REMOTE_CQ_DATA) {
          ++landed;
          if (every && landed % (unsigned long)every == 0) ++owed;
        } else if (e[i].flags & FI_SEND) {
          --in_flight;
        } else {
          finished = 1;
        }
      }
    }
    printf("landed=%lu\n", landed);
    close(fd);
    return 0;
  }
  struct iovec iov = {.iov_base = buf, .iov_len = size};
  struct fi_rma_iov rma = {.addr = peer.addr, .len = size, .key = peer.key};
  struct fi_msg_rma msg = {.msg_iov = &iov,
                           .desc = &desc,
                           .iov_count = 1,
                           .addr = to,
                           .rma_iov = &rma,
                           .rma_iov_count = 1,
                           .data = 0x5a};
  const double start = now_s(), measure = start + seconds / 10, end = measure + seconds;
  double t0 = 0, t = start;
  unsigned long posted = 0, done = 0, measured = 0, came_back = 0;
  for (int i = 0; every && i < kBackPosted; ++i)
    CHECK(fi_recv(bep, back + i * kBack, kBack, back_desc, back_to, back + i * kBack));
  for (;;) {
    t = now_s();
    while (t < end && posted - done < (unsigned long)window) {
      ssize_t r = fi_writemsg(ep, &msg, flags);
      if (r == -FI_EAGAIN) break;
      CHECK(r);
      ++posted;
    }
    if (done == posted && t >= end) break;
    struct fi_cq_data_entry e[16];
    ssize_t r = fi_cq_read(cq, e, 16);
    if (r == -FI_EAGAIN) continue;
    if (r < 0) wait_cq(cq); /* reports the error and exits */
    for (ssize_t i = 0; i < r; ++i, ++done) {
      if (e[i].flags & FI_RECV) { /* a message back (-c): taken in, its buffer reposted */
        ++came_back, --done;
        CHECK(fi_recv(bep, e[i].op_context, kBack, back_desc, back_to, e[i].op_context));
        continue;
      }
      const double c = now_s();
      if (c >= measure && !t0)
        t0 = c;
      else if (t0)
        ++measured;
    }
  }
  const double elapsed = now_s() - t0;
  ssize_t r;
  while ((r = fi_send(ep, buf, 1, desc, to, NULL)) == -FI_EAGAIN) {
    struct fi_cq_data_entry e;
    fi_cq_read(cq, &e, 1); /* progress */
  }
  CHECK(r);
  wait_cq(cq);
  printf("size=%zu window=%d writes=%lu seconds=%.3f gbps=%.2f delivery_complete=%d back=%lu\n",
         size, window, measured, elapsed, measured * (double)size * 8 / elapsed / 1e9,
         (flags & FI_DELIVERY_COMPLETE) != 0, came_back);
  close(fd);
  return 0;
}
