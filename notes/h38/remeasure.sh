#!/bin/bash
# The rows of docs/MICROBENCH.md's idle-machine table that missed issue 38's
# bar, taken again (5 rounds each): ucx/tcp at windows 1 and 32,
# libfabric/shm write, libfabric/tcp write and mpi/tcp at window 1.
# Run from anywhere on an idle machine (about 13 minutes); output on stdout.
cd "$(dirname "$0")/../.."
export SWEEP=1 RSWEEP=1 EVBENCH=${EVBENCH:-build/bin/evbench}
for spec in "1 ucx/tcp" "32 ucx/tcp" "1 libfabric/shm write" "1 libfabric/tcp write" "1 mpi/tcp"; do
  w=${spec%% *}; only=${spec#* }
  echo "=== WINDOW=$w ONLY='$only' $(date +%H:%M:%S)"
  WINDOW=$w ONLY="$only" bash bench/drivers.sh 3 tools 2>&1
done
