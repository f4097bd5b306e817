#!/bin/bash
# Message rate of the mpi driver's poll methods (testsome, testany, test) at
# windows of 4, 64 and 512 messages per peer: build/bin/evbench_mpi_poll_rate
# under mpirun over Open MPI's shared-memory BTL (vader), loopback only.
# Not a test: numbers depend on the machine and its load; compare methods
# within one run.
#
#   bench/mpi_poll_rate.sh [RANKS] [MESSAGES_PER_PEER]   (default 2 ranks, 3000)
set -euo pipefail
cd "$(dirname "$0")/.."
ranks=${1:-2}
messages=${2:-3000}
bench=${EVBENCH_MPI_POLL_RATE:-build/bin/evbench_mpi_poll_rate}
[[ -x $bench ]] || { echo "build it first: cmake --build build --target evbench_mpi_poll_rate" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "# $(mpirun --version | head -1), $(nproc) cores"
exec mpirun --oversubscribe -np "$ranks" --mca pml ob1 --mca btl self,vader \
  --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo "$bench" "$messages"
