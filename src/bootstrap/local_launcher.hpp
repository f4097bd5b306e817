#pragma once
// The `local` bootstrap: fork every rank on this host and supervise them.
//
// The parent binds a RendezvousServer on 127.0.0.1:0 before forking, forks
// `nprocs` children (each joins as one rank, runs the worker and _exit()s with
// its code), serves the rendezvous from a thread and reaps the children.
// A child that dies (signal, or non-zero exit without a clean goodbye) is
// logged, the others are sent SIGTERM, then SIGKILL after a grace period. A
// rank killed by a signal is blamed before ranks that exited because they
// noticed it (see LocalOptions::blame_grace).
// SIGINT/SIGTERM to the parent are forwarded; the parent then returns 130.
// Children get PR_SET_PDEATHSIG=SIGKILL, so they never outlive the thread
// that called launch_local(). Call it before starting other threads.
// Under `bind: core` each child binds itself to its CPU (core/placement.hpp:
// one per physical core of the launcher's allowed CPUs first, wrapping when
// ranks outnumber them) before it joins; the launcher itself stays unbound.
#include <chrono>

#include "core/config.hpp"
#include "drivers/api/registry.hpp"

namespace evb::boot {

struct LocalOptions {
  // After the first death (or an interrupt): SIGTERM, wait this long, SIGKILL.
  std::chrono::milliseconds term_grace{2000};
  // A rank that exits non-zero without a goodbye is blamed only if no rank
  // dies by a signal within this time (the kernel may reap a killed rank
  // after its peers have noticed the broken connection and exited).
  std::chrono::milliseconds blame_grace{500};
  // on_failure exclude: a rank other than 0 killed by a signal after the
  // run started is logged and the others go on (the rendezvous tolerates it).
  bool tolerate_loss = false;
};

int launch_local(const Config& config, int nprocs, const WorkerFn& worker,
                 const LocalOptions& options = {});

// Exit code of the whole run from the codes of ranks that failed on their own:
// none -> 0; all equal -> that code; otherwise the largest.
int combine_exit_codes(const std::vector<int>& codes);

}  // namespace evb::boot
