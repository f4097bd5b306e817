#pragma once
// The invariant check of the fuzz targets: a broken invariant prints what was
// expected and aborts, which libFuzzer reports as a crash and saves the input.
#include <cstdio>
#include <cstdlib>

#define FUZZ_ASSERT(cond, what)                                                                   \
  do {                                                                                            \
    if (!(cond)) {                                                                                \
      std::fprintf(stderr, "fuzz invariant broken at %s:%d: %s (%s)\n", __FILE__, __LINE__, what, \
                   #cond);                                                                        \
      std::abort();                                                                               \
    }                                                                                             \
  } while (0)
