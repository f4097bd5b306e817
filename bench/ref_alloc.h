/* Buffers of the reference loops (alltoall_loop.c, p2p_loop.c), with the
 * same page policy as evbench's `page_size` key so a comparison stays on
 * equal terms: EVB_REF_PAGES=huge maps 2 MiB-aligned memory advised for
 * transparent huge pages (madvise MADV_HUGEPAGE); anything else is malloc. */
#ifndef EVB_REF_ALLOC_H
#define EVB_REF_ALLOC_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void* ref_alloc(size_t bytes) {
  const char* pages = getenv("EVB_REF_PAGES");
  if (!pages || strcmp(pages, "huge") != 0) return malloc(bytes);
  const size_t huge = (size_t)2 << 20;
  const size_t size = (bytes + huge - 1) / huge * huge;
  void* p = NULL;
  if (posix_memalign(&p, huge, size) != 0) return NULL;
  madvise(p, size, MADV_HUGEPAGE);
  return p;
}

#endif
