#!/bin/bash
# tool.sh TEST WINDOW [PIN]  -> Gb/s ; PIN=1 pins server to cpu1 and client to cpu0
T=$1; W=$2; PIN=${3:-0}; port=47990
s=(); c=()
if [[ $PIN == 1 ]]; then s=(taskset -c 1); c=(taskset -c 0); fi
UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 120 "${s[@]}" ucx_perftest -p $port >/dev/null 2>&1 &
sleep 0.5
UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 120 "${c[@]}" ucx_perftest 127.0.0.1 -p $port -t $T -s 524288 -O $W -n ${N:-6000} -w 500 -f 2>/dev/null |
  awk 'NF == 8 {v = $6} END {if (v) printf "%.2f\n", v * 1048576 * 8 / 1e9}' | grep . || echo "n/a"
wait
