#!/bin/bash
# System-wide cpu-clock profile (2 s) during ucx/tcp $DP at window $1: evbench,
# then ucx_perftest; top symbols by process.
source "$(dirname "$0")/lib.sh"
w=${1:-1}; dp=${DP:-write}; out=${OUT:-/tmp/prof}
test=ucp_put_bw; [[ $dp == send ]] && test=tag_bw
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) window $w path $dp"
ev_run $w $dp
sleep 2.5
perf record -q -e cpu-clock -a -g -o $out-ev.data -- sleep 2 2>/dev/null
wait
tool_run $w $test
sleep 2
perf record -q -e cpu-clock -a -g -o $out-tool.data -- sleep 2 2>/dev/null
wait
