#!/bin/bash
# Event rate of two evbench builds side by side (issue 40's reference):
# PULL on 4 nodes over tcp, 1 KiB fragments, 3 s, interleaved rounds of
#   B at batch 1 (another build: the one before a change; it need not know
#     batch.events, so none is set),
#   A at batch.events 1 and A at batch.events K,
# printing events/s and the run's integrity errors per run, then the
# medians. Not a test: the figures depend on the machine and its load
# (printed at the start); compare within one run.
#
#   bench/event_rate_ab.sh -B OTHER_EVBENCH [-A EVBENCH] [-k K] [-r ROUNDS]
#                          [--set KEY=VALUE]...
set -euo pipefail
cd "$(dirname "$0")/.."
a=build/bin/evbench b="" k=16 rounds=3 sets=()
while (($#)); do
  case $1 in
    -A) a=$2; shift 2 ;;
    -B) b=$2; shift 2 ;;
    -k) k=$2; shift 2 ;;
    -r) rounds=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "event_rate_ab.sh: unknown argument '$1' (see the comment at its top)" >&2; exit 2 ;;
  esac
done
[[ -n $b ]] || { echo "event_rate_ab.sh: -B OTHER_EVBENCH is required" >&2; exit 2; }
for bin in "$a" "$b"; do
  [[ -x $bin ]] || { echo "event_rate_ab.sh: '$bin' is not an executable" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg); A=$a B=$b K=$k rounds=$rounds"
base=(run --set protocol=pull --set nodes=4 --set fragment.size=1KiB --set driver=tcp "${sets[@]}")
declare -A runs=()
for ((r = 1; r <= rounds; r++)); do
  for v in B A1 AK; do
    case $v in
      B) cmd=("$b" "${base[@]}") ;;
      A1) cmd=("$a" "${base[@]}" --set batch.events=1) ;;
      AK) cmd=("$a" "${base[@]}" --set "batch.events=$k") ;;
    esac
    if ! "${cmd[@]}" --quiet --json "$tmp/$v-$r.json" >"$tmp/log" 2>&1; then
      echo "event_rate_ab.sh: round $r ($v) failed:" >&2
      cat "$tmp/log" >&2
      exit 1
    fi
    line=$(python3 - "$tmp/$v-$r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
i = r["integrity"]
bad = sum(i[k] for k in ("incomplete", "lost", "duplicate", "corrupt", "out_of_sync"))
print(f'{r["events_per_second"]:.0f} {bad}')
PY
)
    echo "round $r $v: events/s ${line% *}, integrity errors ${line#* }"
    runs[$v]+="${line% *} "
  done
done
for v in B A1 AK; do
  echo "median $v: $(tr ' ' '\n' <<<"${runs[$v]}" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
done
