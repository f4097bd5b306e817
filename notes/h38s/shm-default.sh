#!/bin/bash
# The shared-memory rows at window 1: "1 slot" = the default now (one receive
# slot over shared memory), "recv 2" = the two slots the default was before
# (one sender buffer, receive_slots 2), in the same interleaved rounds.
cd "$(dirname "$0")/../.."
for o in "libfabric/shm write" "ucx/sm write (eh none)" "ucx/sm send (eh none)" "mpi/vader" "libfabric/shm send"; do
  WINDOW=1 ONLY="$o" SWEEP=1 RSWEEP="2" EVBENCH=build/bin/evbench bash bench/drivers.sh 3 tools
done
