#!/bin/bash
# evbench PULL over the MPI driver vs evbench's `alltoall` protocol
# (MPI_Alltoall in a loop), at 2 and 4 ranks, 512 KiB blocks, over Open MPI's
# shared-memory BTL (vader), for both buffer policies: cache-resident (RU ring
# and all-to-all pool of ranks x 512 KiB, one all-to-all's worth) and main
# memory (256 MiB). Same process count on both sides (EVM inside rank 0).
# Prints each figure and the ratio.
# Not a test: numbers depend on the machine and its load.
#
#   bench/mpi_reference.sh [SECONDS]      (default 5 s per measurement)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
evbench=${EVBENCH:-build/bin/evbench}
[[ -x $evbench ]] || { echo "build evbench first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

gbps() {  # $1 = ranks, $2 = ru_buffer, rest = --set options
  local np=$1 ring=$2
  shift 2
  mpirun --oversubscribe -np "$np" --mca pml ob1 --mca btl self,vader \
    --mca oob_tcp_if_include lo "$evbench" run --quiet --set bootstrap=mpi --set driver=mpi \
    --set nodes="$np" --set fragment.size=512KiB --set ru_buffer="$ring" \
    --set duration=${secs}s --set warmup=1s "$@" --json "$tmp/r.json" >/dev/null
  /usr/bin/python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"]["bandwidth_gbps"]["aggregate"])' "$tmp/r.json"
}
ratio() { /usr/bin/python3 -c "import sys; a,b=map(float,sys.argv[1:]); print('%.2f' % (a/b) if b else 'n/a')" "$1" "$2"; }

echo "# mpi_reference: 512 KiB, ${secs} s each, Open MPI vader BTL, $(nproc) cores"
echo "# evbench $("$evbench" --version | cut -d' ' -f2-), $(mpirun --version | head -1)"
printf "# %5s %-8s %18s %18s %8s\n" ranks policy "PULL (mpi) Gb/s" "alltoall Gb/s" ratio
for np in 2 4; do
  for policy in cache memory; do
    # cache: a ring as large as the all-to-all send buffer (ranks x 512 KiB)
    if [[ $policy == cache ]]; then ring=$((np * 524288)); else ring=256MiB; fi
    pull=$(gbps $np $ring --set protocol=pull --set evm=with-rank0 --set parallel=$np)
    a2a=$(gbps $np $ring --set protocol=alltoall)
    printf "  %5s %-8s %18s %18s %7sx\n" $np $policy "$pull" "$a2a" "$(ratio "$pull" "$a2a")"
  done
done
echo "# aggregate = sum over ranks of bytes received per second, own fragment/block included (docs/METRICS.md)"
