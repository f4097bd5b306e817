#!/bin/bash
# A/B interleaved: ucx one-to-one write (DP=write), 512 KiB, one sender buffer,
# busy polling, eh none, A = $A, B = $B evbench, per round also ucp_put_bw at
# the same window. VARIANTS: "tls|window|slots" (slots 0 = unset).
A=${A:-/work/main/build/bin/evbench}; B=${B:-build/bin/evbench}; rounds=${ROUNDS:-3}
variants=${VARIANTS:-"tcp|1|0 tcp|32|0 tcp|32|1 sm|32|0"}
run() {  # evbench tls window slots
  local s=(); (($4 > 0)) && s=(--set receive_slots=$4)
  "$1" run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 --set parallel=$3 \
    --set fragment.size=512KiB --set ru_buffer=512KiB --set poll_mode=busy --set duration=3s --set warmup=1s \
    --set driver=ucx --set driver_options.tls=$2 --set driver_options.error_handling=${EH:-none} \
    --set data_path=${DP:-write} "${s[@]}" --json /tmp/ab.json >/dev/null 2>/tmp/ab.err &&
  python3 -c "import json;print('%.2f' % json.load(open('/tmp/ab.json'))['results']['bandwidth_gbps']['aggregate'])" || echo n/a
}
tool() {  # tls window
  local t=ucp_put_bw; [[ ${DP:-write} == send ]] && t=tag_bw
  UCX_TLS=$1 UCX_NET_DEVICES=lo timeout 60 ucx_perftest -p 47950 >/dev/null 2>&1 &
  sleep 0.5
  UCX_TLS=$1 UCX_NET_DEVICES=lo timeout 60 ucx_perftest 127.0.0.1 -p 47950 -t $t -s 524288 -O $2 -n 6000 -w 500 -f 2>/dev/null |
    awk 'NF == 8 {v = $6} END {printf "%.2f\n", v * 1048576 * 8 / 1e9}'
  wait
}
echo "# A=$A B=$B; ${DP:-write}, eh ${EH:-none}; load at start $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-5s %-14s %8s %8s %8s\n" round variant tool A B
for ((r = 1; r <= rounds; ++r)); do
  for v in $variants; do
    IFS='|' read -r tls w sl <<<"$v"
    t=$(tool $tls $w)
    if ((r % 2)); then a=$(run $A $tls $w $sl); b=$(run $B $tls $w $sl); else b=$(run $B $tls $w $sl); a=$(run $A $tls $w $sl); fi
    printf "%-5s %-14s %8s %8s %8s\n" $r "$v" $t $a $b
  done
done
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)"
