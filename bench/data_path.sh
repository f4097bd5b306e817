#!/bin/bash
# Which data path is faster, per driver variant: evbench PULL aggregate Gb/s
# with data_path send and with data_path write, alternated R times in the
# same run (medians), and what data_path auto picks for the variant
# (results.data_path of an auto run). This is the measurement behind each
# driver's declared preference (Capabilities::write_preferred; the driver
# pages name this command). Variants with rdma_write that run here:
# ucx/sm, ucx/tcp, libfabric/shm, libfabric/tcp.
# Not a test: figures depend on the machine and its load; compare the ratio.
#
#   bench/data_path.sh [SECONDS] [REPEATS] [NODES] [--set KEY=VALUE]...
#   (defaults 4, 3, 4; extra --set options go to every run, e.g.
#   --set poll_mode=yield to compare the paths without blocking waits)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-4}
warmup=$([[ $secs -ge 3 ]] && echo 1s || echo 200ms)  # shorter than the run
repeats=${2:-3}
nodes=${3:-4}
shift $(($# < 3 ? $# : 3))
extra=("$@")
evbench=${EVBENCH:-build/bin/evbench}
[[ -x $evbench ]] || { echo "build evbench first (scripts/build.sh)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export UCX_NET_DEVICES=lo FI_TCP_IFACE=lo

run() {  # $1 = data_path, rest = --set options; prints "Gb/s data_path"
  local path=$1
  shift
  "$evbench" run --quiet --set nodes="$nodes" --set evm=with-rank0 --set protocol=pull \
    --set fragment.size=524288 --set duration="${secs}s" --set warmup="$warmup" \
    --set data_path="$path" "${extra[@]}" "$@" --json "$tmp/r.json" >/dev/null 2>"$tmp/r.err" ||
    { echo "n/a failed:$(tail -1 "$tmp/r.err" | tr ' ' _)"; return; }
  /usr/bin/python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["results"]
print("%.2f %s" % (r["bandwidth_gbps"]["aggregate"], r["data_path"]))' "$tmp/r.json"
}

median() {
  /usr/bin/python3 -c 'import statistics,sys
v = [float(x) for x in sys.argv[1:] if x != "n/a"]
print("%.2f" % statistics.median(v) if v else "n/a")' "$@"
}

ratio() {
  /usr/bin/python3 -c 'import sys
try: print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))
except (ValueError, ZeroDivisionError): print("n/a")' "$1" "$2"
}

echo "# data_path.sh: evbench PULL, $nodes nodes, 512 KiB, ${secs} s each, medians of $repeats alternated runs, $(nproc) cores${extra[*]:+, ${extra[*]}}"
printf "# %-15s %10s %10s %11s %10s\n" variant "send Gb/s" "write Gb/s" "write/send" "auto picks"
variant() {  # name, --set options
  local name=$1
  shift
  local sends=() writes=()
  for ((i = 0; i < repeats; i++)); do
    sends+=("$(run send "$@" | cut -d' ' -f1)")
    writes+=("$(run write "$@" | cut -d' ' -f1)")
  done
  local s w
  s=$(median "${sends[@]}")
  w=$(median "${writes[@]}")
  printf "  %-15s %10s %10s %11s %10s\n" "$name" "$s" "$w" "$(ratio "$w" "$s")" \
    "$(run auto "$@" | cut -d' ' -f2)"
}
variant ucx/sm --set driver=ucx --set driver_options.tls=sm
variant ucx/tcp --set driver=ucx --set driver_options.tls=tcp
variant libfabric/shm --set driver=libfabric --set driver_options.provider=shm
variant libfabric/tcp --set driver=libfabric --set driver_options.provider=tcp
echo "# Gb/s = aggregate over BUs, own fragment included (docs/METRICS.md)"
