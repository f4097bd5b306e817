#!/bin/bash
# Per-process CPU (user/sys, in % of one core) over a 2 s steady window, and
# the rate: ucx/tcp write (or $DP), 512 KiB, one-to-one, window $1, against
# ucx_perftest ucp_put_bw (or tag_bw for DP=send) at the same window.
source "$(dirname "$0")/lib.sh"
w=${1:-1}; dp=${DP:-write}
test=ucp_put_bw; [[ $dp == send ]] && test=tag_bw
tck=$(getconf CLK_TCK)
sample() {  # pids... -> "pid utime stime" lines
  for p in "$@"; do awk -v p=$p '{print p, $14, $15}' /proc/$p/stat 2>/dev/null; done; }
window() {  # $1 = name, rest = pids: CPU % user/sys over 2 s
  local name=$1; shift
  local a b; a=$(sample "$@"); sleep 2; b=$(sample "$@")
  join <(echo "$a") <(echo "$b") | while read -r p u0 s0 u1 s1; do
    printf "  %-10s pid %-7s %-28s user %5.1f%%  sys %5.1f%%\n" "$name" $p "$(tr '\0' ' ' </proc/$p/cmdline | cut -c1-28)" \
      "$(echo "($u1-$u0)*100/$tck/2" | bc -l)" "$(echo "($s1-$s0)*100/$tck/2" | bc -l)"; done; }
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) window $w path $dp"
ev_run $w $dp
sleep 2.5
window evbench $(pgrep -f "evbench run" | sort -n)
wait
python3 -c "import json;print('  evbench Gb/s %.2f' % json.load(open('/tmp/cpu-ev.json'))['results']['bandwidth_gbps']['aggregate'])"
tool_run $w $test
sleep 2
window tool $(pgrep -x ucx_perftest | sort -n)
wait
cat /tmp/cpu-tool.txt
