#!/bin/bash
# evbench PULL over its TCP driver vs Open MPI's MPI_Alltoall over the TCP BTL
# vs iperf3, all on loopback, 4 processes, 512 KiB blocks, in one go.
# Both buffer policies: cache-resident (a 2 MiB RU ring, the size of the
# all-to-all's reused send buffer) and main memory (256 MiB RU ring / all-to-all rotating over 256 MiB).
# Prints each figure and evbench's ratio to each. Not a test: numbers depend
# on the machine and its load.
#
#   bench/tcp_reference.sh [SECONDS]      (default 5 s per measurement)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-5}
evbench=${EVBENCH:-build/bin/evbench}
[[ -x $evbench ]] || { echo "build evbench first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; kill $(jobs -p) 2>/dev/null || true' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpicc -O2 -o "$tmp/alltoall_loop" bench/alltoall_loop.c

block=524288
small=$((4 * block))            # 2 MiB: as much as the all-to-all send buffer it reuses
large=$((256 * 1024 * 1024))    # 256 MiB: streams from main memory

evbench_gbps() {  # $1 = ru_buffer bytes
  "$evbench" run --quiet --set nodes=4 --set evm=with-rank0 --set protocol=pull \
    --set fragment.size=$block --set ru_buffer="$1" --set duration=${secs}s \
    --set warmup=1s --json "$tmp/e.json" >/dev/null
  /usr/bin/python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"]["bandwidth_gbps"]["aggregate"])' "$tmp/e.json"
}

alltoall_gbps() {  # $1 = pool bytes (0 = reuse one buffer)
  mpirun --oversubscribe -np 4 --mca pml ob1 --mca btl tcp,self \
    --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo \
    "$tmp/alltoall_loop" $block "$secs" "$1" | sed -n 's/.*aggregate_gbps=\([0-9.]*\).*/\1/p'
}

iperf_gbps() {  # two client/server pairs = 4 processes, 512 KiB writes
  local total=0
  for port in 5301 5302; do iperf3 -s -1 -B 127.0.0.1 -p $port >/dev/null 2>&1 & done
  sleep 0.5
  iperf3 -c 127.0.0.1 -p 5301 -l $block -t "$secs" -J >"$tmp/i1.json" &
  iperf3 -c 127.0.0.1 -p 5302 -l $block -t "$secs" -J >"$tmp/i2.json" &
  wait
  /usr/bin/python3 -c 'import json,sys; print("%.3f" % sum(json.load(open(f))["end"]["sum_received"]["bits_per_second"]/1e9 for f in sys.argv[1:]))' "$tmp/i1.json" "$tmp/i2.json"
}

ratio() { /usr/bin/python3 -c "import sys; a,b=map(float,sys.argv[1:]); print('%.2f' % (a/b) if b else 'n/a')" "$1" "$2"; }

echo "# tcp_reference: 4 processes, 512 KiB, ${secs} s each, loopback ($(nproc) cores)"
echo "# evbench $("$evbench" --version | cut -d' ' -f2-), $(mpirun --version | head -1), $(iperf3 --version | head -1 | cut -d' ' -f1-2)"
printf "# %-14s %16s %18s %12s %14s %14s\n" policy "evbench Gb/s" "MPI_Alltoall Gb/s" "iperf3 Gb/s" "vs alltoall" "vs iperf3"
ip=$(iperf_gbps)
for policy in cache memory; do
  if [[ $policy == cache ]]; then ring=$small; pool=0; else ring=$large; pool=$large; fi
  e=$(evbench_gbps $ring)
  a=$(alltoall_gbps $pool)
  printf "  %-14s %16s %18s %12s %13sx %13sx\n" $policy "$e" "$a" "$ip" "$(ratio "$e" "$a")" "$(ratio "$e" "$ip")"
done
echo "# aggregate = sum over the 4 nodes of bytes received per second (docs/METRICS.md);"
echo "# iperf3 = two loopback streams (4 processes), no buffer policy of its own."
