#!/usr/bin/env bash
# Route a platform with OpenSM: its cabling goes into the InfiniBand fabric
# simulator ibsim, OpenSM runs one sweep with the chosen routing engine
# against it (through ibsim's umad2sim preload), and ibnetdiscover and
# dump_lfts dump the result. OUTDIR/platform.yaml names the two dumps
# (`fabric:`) with the links of PLATFORM; evbench topo and evbench sim load it.
#
#   scripts/opensm-routes.sh PLATFORM ENGINE OUTDIR
#     PLATFORM  a platform file (configs/platforms/*.yaml; a `fabric:` one
#               re-routes a real ibnetdiscover cabling)
#     ENGINE    an OpenSM routing engine: minhop, updn, ftree, dfsssp, ...
#     OUTDIR    created; holds cabling.net (ibsim's input), opensm.log,
#               ibsim.log, fabric.topo, fabric.lfts, platform.yaml
#
# Environment: EVBENCH (default build/bin/evbench), OPENSM_TIMEOUT (seconds
# for OpenSM's sweep, default 300). Needs ibsim-utils, opensm and
# infiniband-diags (scripts/install-deps.sh --test). Exit 0 when OpenSM
# reached SUBNET UP with ENGINE and both dumps were written; 1 otherwise,
# with the reason on stderr. OpenSM falling back from ENGINE to minhop (ftree
# on a tree it does not recognise) is reported and exits 3, the dumps kept.
set -euo pipefail

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[[ $# -eq 3 ]] || usage
platform=$1 engine=$2 outdir=$3
here=$(cd "$(dirname "$0")/.." && pwd)
evbench=${EVBENCH:-$here/build/bin/evbench}
timeout_s=${OPENSM_TIMEOUT:-300}
umad2sim=$(ls /usr/lib/*/umad2sim/libumad2sim.so 2>/dev/null | head -n1 || true)
for tool in ibsim opensm ibnetdiscover dump_lfts; do
  command -v "$tool" >/dev/null || { echo "opensm-routes: $tool not found (scripts/install-deps.sh --test)" >&2; exit 1; }
done
[[ -n $umad2sim ]] || { echo "opensm-routes: libumad2sim.so not found (package ibsim-utils)" >&2; exit 1; }
[[ -x $evbench ]] || { echo "opensm-routes: $evbench not built (set EVBENCH)" >&2; exit 1; }

mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
mkdir -p "$outdir/osm-cache"

# Everything started here is stopped on the way out, whatever the way.
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$evbench" topo "$platform" --write-ibnetdiscover "$outdir/cabling.net" >/dev/null
first_ca=$(awk '$1 == "Ca" { gsub(/"/, "", $3); print $3; exit }' "$outdir/cabling.net")
nodes=$(grep -c '^\(Ca\|Switch\)' "$outdir/cabling.net")
switches=$(grep -c '^Switch' "$outdir/cabling.net")

# One simulator per run: its own socket name, so runs can go in parallel.
export IBSIM_SOCKNAME="evbench-osm-$$"
export SIM_HOST=$first_ca OSM_CACHE_DIR="$outdir/osm-cache" OSM_TMP_DIR="$outdir/osm-cache"
ibsim -s -n -N $((nodes + 16)) -S $((switches + 16)) "$outdir/cabling.net" \
  >"$outdir/ibsim.log" 2>&1 </dev/null &
pids+=($!)
for _ in $(seq 1 300); do
  grep -q 'Network simulator ready' "$outdir/ibsim.log" && break
  kill -0 "${pids[0]}" 2>/dev/null || { echo "opensm-routes: ibsim exited:" >&2; tail -5 "$outdir/ibsim.log" >&2; exit 1; }
  sleep 0.1
done
grep -q 'Network simulator ready' "$outdir/ibsim.log" || { echo "opensm-routes: ibsim not ready" >&2; exit 1; }

rm -f "$outdir/opensm.log"
LD_PRELOAD=$umad2sim opensm -R "$engine" -o -f "$outdir/opensm.log" \
  >"$outdir/opensm.out" 2>&1 </dev/null &
osm=$!
pids+=("$osm")
for _ in $(seq 1 $((timeout_s * 5))); do
  kill -0 "$osm" 2>/dev/null || break
  sleep 0.2
done
if kill -0 "$osm" 2>/dev/null; then
  echo "opensm-routes: OpenSM did not finish its sweep in ${timeout_s} s (OPENSM_TIMEOUT); see $outdir/opensm.log" >&2
  exit 1
fi
if ! grep -q 'SUBNET UP' "$outdir/opensm.log"; then
  echo "opensm-routes: OpenSM did not bring the subnet up; its last errors ($outdir/opensm.log):" >&2
  grep -E 'ERR|error' "$outdir/opensm.log" | tail -5 >&2 || tail -5 "$outdir/opensm.out" >&2
  exit 1
fi

LD_PRELOAD=$umad2sim timeout -k 5 120 ibnetdiscover >"$outdir/fabric.topo" 2>"$outdir/ibnetdiscover.err"
LD_PRELOAD=$umad2sim timeout -k 5 300 dump_lfts >"$outdir/fabric.lfts" 2>"$outdir/dump_lfts.err"

osm_version=$(opensm --version 2>/dev/null | grep -m1 -o 'OpenSM [0-9.]*' || true)
{
  echo "# $(basename "$platform") routed by ${osm_version:-OpenSM} -R $engine"
  echo "# on ibsim: scripts/opensm-routes.sh $platform $engine $outdir"
  echo "name: $(basename "$platform" .yaml)-$engine"
  echo "fabric: {topology: fabric.topo, lfts: fabric.lfts}"
  # The links section of PLATFORM (latency; bandwidth comes from the dump).
  awk '/^links:/ { on = 1; print; next } on && /^[^ #]/ { on = 0 } on' "$platform"
} >"$outdir/platform.yaml"

# OpenSM logs the engine whose tables it set ("ftree tables configured on all
# switches"); an engine that fails on this cabling falls back to minhop.
used=$(grep -oE '[a-z0-9_]+ tables configured on all switches' "$outdir/opensm.log" | tail -n1 | cut -d' ' -f1 || true)
if [[ $used != "$engine" ]]; then
  echo "opensm-routes: OpenSM did not route with $engine but with ${used:-an unknown engine} (see $outdir/opensm.log); dumps kept in $outdir" >&2
  exit 3
fi
echo "opensm-routes: $engine: SUBNET UP, tables in $outdir/fabric.lfts, platform $outdir/platform.yaml"
