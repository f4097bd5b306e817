#!/bin/bash
# Soak run: one evbench run of DURATION (default 1h) under the local
# bootstrap, watched from outside. Every INTERVAL (default DURATION/60, at
# least 1 s) it samples the resident set (VmRSS, /proc/PID/status) of every
# rank process; the run itself reports throughput per interval
# (results.samples, report_interval = INTERVAL) and each rank's peak RSS
# (results.peak_rss_bytes). At the end it prints a table: per rank the RSS
# after warm-up, at the end, its growth and peak; throughput of the first
# and last tenth of the measured intervals and the drift between them; the
# same per CPU-second the ranks used (utime + stime from /proc/PID/stat),
# which a busy neighbour does not move; and writes the same as JSON
# (soak.json) next to the results and the samples.
# Not a test (no thresholds); see docs/METRICS.md "Soak".
#
#   bench/soak.sh [DURATION [OUTDIR]] [-- evbench run arguments...]
#   bench/soak.sh 5min /tmp/soak -- --set nodes=4 --set fragment.size=64KiB
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-1h}
outdir=${2:-soak-$(date -u +%Y%m%dT%H%M%SZ)}
shift $(( $# >= 2 ? 2 : $# ))
[[ ${1:-} == -- ]] && shift
evbench=${EVBENCH:-build/bin/evbench}
[[ -x $evbench ]] || { echo "build evbench first (scripts/build.sh)" >&2; exit 1; }

seconds=$(/usr/bin/python3 -c '
import re, sys
m = re.fullmatch(r"([0-9.]+)\s*(ms|s|min|h)?", sys.argv[1])
if not m: sys.exit("soak.sh: DURATION like 300s, 5min or 1h")
print(float(m.group(1)) * {"ms": 1e-3, "s": 1, "min": 60, "h": 3600, None: 1}[m.group(2)])' "$duration")
interval=${INTERVAL:-$(/usr/bin/python3 -c "print(max(1, round($seconds / 60)))")}
mkdir -p "$outdir"

"$evbench" run --quiet --set bootstrap=local --set duration="${seconds}s" \
    --set report_interval="${interval}s" --json "$outdir/results.json" "$@" \
    >"$outdir/evbench.out" 2>&1 &
launcher=$!
trap 'kill "$launcher" 2>/dev/null || true' INT TERM

# Rank processes: the launcher's children, forked in rank order.
children() {
  local p
  for p in /proc/[0-9]*; do
    [[ -r $p/stat ]] || continue
    read -r _ _ _ ppid _ < "$p/stat" 2>/dev/null || continue
    [[ $ppid == "$launcher" ]] && echo "${p#/proc/}"
  done | sort -n
}
start=$(date +%s.%N)
echo "t_s rank pid rss_kib cpu_ticks" >"$outdir/rss.tsv"
while kill -0 "$launcher" 2>/dev/null; do
  sleep "$interval"
  t=$(/usr/bin/python3 -c "import time; print(round(time.time() - $start, 1))")
  rank=0
  for pid in $(children); do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
    # utime + stime (clock ticks): the CPU the rank used so far (fields 14
    # and 15; the command name in field 2 has no spaces: evbench).
    cpu=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || true)
    [[ -n $rss && -n $cpu ]] && echo "$t $rank $pid $rss $cpu" >>"$outdir/rss.tsv"
    rank=$((rank + 1))
  done
done
rc=0
wait "$launcher" || rc=$?
trap - INT TERM
if ((rc != 0)); then
  echo "soak.sh: evbench exited $rc:" >&2
  tail -n 20 "$outdir/evbench.out" >&2
  exit "$rc"
fi
/usr/bin/python3 bench/soak_report.py "$outdir"
