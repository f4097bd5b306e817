#!/bin/bash
# Every driver variant against the host's copy limit, in one run: the copy
# rate of N processes (bench/copy_limit.c: 512 KiB blocks between 256 MiB
# pools, measured before and after the variants; the mean is the limit),
# then evbench PULL at N nodes, 512 KiB fragments, EVM inside rank 0, the
# memory buffer policy (256 MiB RU ring), each variant's aggregate and
# network-only Gb/s and their fractions of the limit:
#   aggregate / limit        the headline figure against the copy rate (it
#                            counts each node's own fragment, which is not
#                            copied over the transport)
#   network x copies / limit the bytes the transport copied: one copy per
#                            byte for shared memory (the receiver or the
#                            writer copies straight between the processes),
#                            two for loopback TCP (into the kernel, out of it)
# docs/METRICS.md ("The copy limit") explains the accounting.
# Not a test: figures depend on the machine and its load; on a host with
# fewer cores than N the processes share them (compare fractions).
#
#   bench/limit.sh [NODES] [SECONDS]        (defaults 4, 5)
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-4}
secs=${2:-5}
warmup=$([[ $secs -ge 3 ]] && echo 1s || echo 200ms)  # shorter than the run
evbench=${EVBENCH:-build/bin/evbench}
[[ -x $evbench ]] || { echo "build evbench first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 UCX_NET_DEVICES=lo FI_TCP_IFACE=lo
block=524288
pool=$((256 * 1024 * 1024))
gcc -O2 -o "$tmp/copy_limit" bench/copy_limit.c

copy_gbps() {
  "$tmp/copy_limit" "$nodes" $block "$secs" $pool | sed -n 's/^copy_gbps=\([0-9.]*\).*/\1/p'
}

common=(run --quiet --set nodes="$nodes" --set evm=with-rank0 --set protocol=pull
  --set fragment.size=$block --set ru_buffer=$pool --set duration="${secs}s" --set warmup="$warmup")
rates='import json,sys
r = json.load(open(sys.argv[1]))["results"]["bandwidth_gbps"]
print("%.2f %.2f" % (r["aggregate"], r["network"]["aggregate"]))'

evbench_rates() {  # wrapper... -- --set options; prints "aggregate network" or "n/a n/a"
  local wrap=()
  while [[ $1 != -- ]]; do wrap+=("$1"); shift; done
  shift
  "${wrap[@]}" "$evbench" "${common[@]}" "$@" --json "$tmp/e.json" >/dev/null 2>"$tmp/e.err" ||
    { echo "failed: $(tail -1 "$tmp/e.err")" >&2; echo "n/a n/a"; return; }
  /usr/bin/python3 -c "$rates" "$tmp/e.json"
}

mpi_wrap=(mpirun --oversubscribe -np "$nodes" --mca pml ob1 --mca btl self,vader
  --mca oob_tcp_if_include lo)
before=$(copy_gbps)
results=()
variant() {  # name copies wrapper... -- --set options
  local name=$1 copies=$2
  shift 2
  results+=("$name $copies $(evbench_rates "$@")")
}
variant mpi/vader 1 "${mpi_wrap[@]}" -- --set bootstrap=mpi --set driver=mpi
for tls in sm tcp; do
  copies=$([[ $tls == sm ]] && echo 1 || echo 2)
  for path in write send; do
    variant "ucx/$tls/$path" "$copies" env -- --set driver=ucx --set driver_options.tls=$tls \
      --set data_path=$path
  done
done
for provider in shm tcp; do
  copies=$([[ $provider == shm ]] && echo 1 || echo 2)
  for path in write send; do
    variant "libfabric/$provider/$path" "$copies" env -- --set driver=libfabric \
      --set driver_options.provider=$provider --set data_path=$path
  done
done
variant psm2/shm 1 scripts/with-psm2-shm.sh -- --set driver=psm2
variant tcp 2 env -- --set driver=tcp
after=$(copy_gbps)

/usr/bin/python3 - "$nodes" "$secs" "$(nproc)" "$before" "$after" "${results[@]}" <<'EOF'
import sys
nodes, secs, cores, before, after = sys.argv[1:6]
limit = (float(before) + float(after)) / 2
print(f"# limit.sh: {nodes} nodes, 512 KiB, memory policy, {secs} s each, {cores} cores")
print(f"# copy limit ({nodes} processes, 512 KiB blocks, 256 MiB pools): "
      f"{before} Gb/s before, {after} after, {limit:.2f} used")
print("# %-22s %6s %10s %10s %10s %13s" %
      ("variant", "copies", "aggr Gb/s", "net Gb/s", "aggr/limit", "net*copies/limit"))
for row in sys.argv[6:]:
    name, copies, aggr, net = row.split()
    if aggr == "n/a":
        print("  %-22s %6s %10s %10s %10s %13s" % (name, copies, "n/a", "n/a", "n/a", "n/a"))
        continue
    print("  %-22s %6s %10s %10s %10.2f %13.2f" %
          (name, copies, aggr, net, float(aggr) / limit, float(net) * int(copies) / limit))
EOF
