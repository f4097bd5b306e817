// LD_PRELOAD: H38U_LAZY_NS=N makes the receiving process (the one that posted a tagged
// receive of >= 64 KiB) spin N ns before each ucp_worker_progress call.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <ucp/api/ucp.h>
static int receiver, putter;
static long calls;
static long lazy = -1;
static void* lib(void) {
  void* h = dlopen("libucp.so.0", RTLD_NOW | RTLD_NOLOAD);
  return h ? h : RTLD_NEXT;
}
static long now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000L + t.tv_nsec;
}
unsigned ucp_worker_progress(ucp_worker_h w) {
  static unsigned (*real)(ucp_worker_h);
  if (!real) real = (unsigned (*)(ucp_worker_h))dlsym(lib(), "ucp_worker_progress");
  if (lazy < 0) {
    const char* e = getenv("H38U_LAZY_NS");
    lazy = e ? atol(e) : 0;
  }
  if (getenv("H38U_LAZY_TARGET") && !putter && ++calls > 200000) receiver = 1;
  if (receiver && lazy > 0) {
    long end = now() + lazy;
    while (now() < end) {
    }
  }
  return real(w);
}
ucs_status_ptr_t ucp_tag_recv_nbx(ucp_worker_h w, void* b, size_t c, ucp_tag_t t, ucp_tag_t m,
                                  const ucp_request_param_t* p) {
  static ucs_status_ptr_t (*real)(ucp_worker_h, void*, size_t, ucp_tag_t, ucp_tag_t,
                                  const ucp_request_param_t*);
  if (!real) real = dlsym(lib(), "ucp_tag_recv_nbx");
  if (c >= 65536) receiver = 1;
  return real(w, b, c, t, m, p);
}
ucs_status_ptr_t ucp_tag_recv_nb(ucp_worker_h w, void* b, size_t c, ucp_datatype_t d, ucp_tag_t t,
                                 ucp_tag_t m, ucp_tag_recv_callback_t cb) {
  static ucs_status_ptr_t (*real)(ucp_worker_h, void*, size_t, ucp_datatype_t, ucp_tag_t, ucp_tag_t,
                                  ucp_tag_recv_callback_t);
  if (!real) real = dlsym(lib(), "ucp_tag_recv_nb");
  if (c >= 65536) receiver = 1;
  return real(w, b, c, d, t, m, cb);
}
ucs_status_ptr_t ucp_put_nbx(ucp_ep_h ep, const void* b, size_t c, uint64_t ra, ucp_rkey_h rk,
                             const ucp_request_param_t* p) {
  static ucs_status_ptr_t (*real)(ucp_ep_h, const void*, size_t, uint64_t, ucp_rkey_h,
                                  const ucp_request_param_t*);
  if (!real) real = dlsym(lib(), "ucp_put_nbx");
  putter = 1;
  receiver = 0;
  return real(ep, b, c, ra, rk, p);
}
ucs_status_t ucp_put_nbi(ucp_ep_h ep, const void* b, size_t c, uint64_t ra, ucp_rkey_h rk) {
  static ucs_status_t (*real)(ucp_ep_h, const void*, size_t, uint64_t, ucp_rkey_h);
  if (!real) real = dlsym(lib(), "ucp_put_nbi");
  putter = 1;
  receiver = 0;
  return real(ep, b, c, ra, rk);
}
