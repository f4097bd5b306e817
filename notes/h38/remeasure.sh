#!/bin/bash
cd /work/main
export SWEEP=1 RSWEEP=1 EVBENCH=build/bin/evbench
for spec in "1 ucx/tcp" "32 ucx/tcp" "1 libfabric/shm write" "1 libfabric/tcp write" "1 mpi/tcp"; do
  w=${spec%% *}; only=${spec#* }
  echo "=== WINDOW=$w ONLY='$only' $(date +%H:%M:%S)"
  WINDOW=$w ONLY="$only" bash bench/drivers.sh 3 tools 2>&1
done
