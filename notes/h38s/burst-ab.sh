#!/bin/bash
# The ucx driver's progress burst (ucp_worker_progress up to 16 times per
# poll while it reports progress) against one call per poll, interleaved:
# drivers.sh's ucx cells with error_handling none, both windows, ROUNDS=1 per
# pass, A (16) then B (1), $1 passes. Needs a build whose progress() reads
# EVB_UCX_BURST (a measuring patch, notes/h38s/README).
cd "$(dirname "$0")/../.."
for pass in $(seq ${1:-2}); do
  for w in 1 32; do
    for b in 16 1; do
      for o in "ucx/sm send (eh none)" "ucx/sm write (eh none)" "ucx/tcp send (eh none)" "ucx/tcp write (eh none)"; do
        EVB_UCX_BURST=$b ROUNDS=1 WINDOW=$w ONLY="$o" SWEEP=1 RSWEEP="" EVBENCH=build/bin/evbench \
          bash bench/drivers.sh 3 tools | grep "^  ucx" | sed "s/^/w$w burst$b /"
      done
    done
  done
done
