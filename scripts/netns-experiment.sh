#!/bin/bash
# The emulated-cluster experiment of docs/EMULATED_CLUSTER.md: for each uplink
# rate, bring up the cluster (scripts/netns-cluster.sh), run the one-to-one
# shift scan and the PULL event builder with barrel and with random
# scheduling (scripts/netns-run.sh), take the cluster down, and print the
# table (scripts/netns-table.py). Results: OUTDIR/<uplink>/{shift-scan,
# pull-barrel,pull-random}.json and OUTDIR/<uplink>/cluster.txt.
#
#   netns-experiment.sh OUTDIR [--hosts N] [--leaves L] [--host-rate R]
#                       [--uplinks "R1 R2 ..."] [--duration D] [--warmup W]
#                       [--pull-duration D] [--pull-warmup W] [--prefix P] [--evbench PATH]
#
# Defaults: 8 hosts on 2 leaves, 1gbit host links, uplinks "1gbit 4gbit"
# (4:1 and 1:1 with 4 hosts per leaf), 4s per point with 1s warm-up (PULL:
# the same unless --pull-duration/--pull-warmup; give PULL a window several
# times its event latency, which reached seconds on 16 hosts at 4:1). Every
# rank blocks in poll (poll_mode=block): the namespaces share this machine's
# cores, so busy-polling ranks would measure the CPU, not the network.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() {
  echo "netns-experiment.sh: $*" >&2
  exit 2
}

out="${1:-}"
[[ -n "$out" && "$out" != -* ]] || die "usage: netns-experiment.sh OUTDIR [--hosts N] [--leaves L] [--host-rate R] [--uplinks \"R1 R2\"] [--duration D] [--warmup W] [--prefix P] [--evbench PATH]"
shift
hosts=8 leaves=2 host_rate=1gbit uplinks="1gbit 4gbit" duration=4s warmup=1s prefix=evbx
pull_duration="" pull_warmup=""
evbench_args=()
while (($#)); do
  case "$1" in
    --hosts) hosts="${2:?}"; shift 2 ;;
    --leaves) leaves="${2:?}"; shift 2 ;;
    --host-rate) host_rate="${2:?}"; shift 2 ;;
    --uplinks) uplinks="${2:?}"; shift 2 ;;
    --duration) duration="${2:?}"; shift 2 ;;
    --warmup) warmup="${2:?}"; shift 2 ;;
    --pull-duration) pull_duration="${2:?}"; shift 2 ;;
    --pull-warmup) pull_warmup="${2:?}"; shift 2 ;;
    --prefix) prefix="${2:?}"; shift 2 ;;
    --evbench) evbench_args=(--evbench "${2:?}"); shift 2 ;;
    *) die "unknown option '$1'" ;;
  esac
done
mkdir -p "$out"

cluster_up=0
trap 'if ((cluster_up)); then "$here/netns-cluster.sh" down --prefix "$prefix"; fi' EXIT
trap 'exit 130' INT TERM

pull_duration=${pull_duration:-$duration} pull_warmup=${pull_warmup:-$warmup}
common=(--set "nodes=$hosts" --set poll_mode=block --set driver=tcp --set peer_timeout=30s)
scan_time=(--set "duration=$duration" --set "warmup=$warmup")
pull_time=(--set "duration=$pull_duration" --set "warmup=$pull_warmup")
for up in $uplinks; do
  dir="$out/uplink-$up"
  mkdir -p "$dir"
  "$here/netns-cluster.sh" up "$hosts" --leaves "$leaves" --host-rate "$host_rate" \
    --uplink-rate "$up" --prefix "$prefix" | tee "$dir/cluster.txt"
  cluster_up=1
  run() {  # name, then evbench run options
    local name=$1
    shift
    echo "# $name" >&2
    "$here/netns-run.sh" --prefix "$prefix" "${evbench_args[@]}" --timeout 600 \
      --json "$dir/$name.json" -- "${common[@]}" "$@" >/dev/null
  }
  run shift-scan "${scan_time[@]}" --set protocol=one-to-one --set shift=scan
  run pull-barrel "${pull_time[@]}" --set protocol=pull --set evm=with-rank0 --set scheduling=barrel
  run pull-random "${pull_time[@]}" --set protocol=pull --set evm=with-rank0 --set scheduling=random
  "$here/netns-cluster.sh" down --prefix "$prefix"
  cluster_up=0
done
/usr/bin/python3 "$here/netns-table.py" "$out" | tee "$out/table.md"
