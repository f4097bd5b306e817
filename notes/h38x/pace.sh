#!/bin/bash
# ucx/tcp write, one-to-one, 512 KiB, one sender buffer, eh none: the target
# paced (experimental EVB_X_IDLE_PACE=ns on every rank with no send/write in
# flight) against unpaced, interleaved ROUNDS rounds, with ucp_put_bw per round.
# VARIANTS: "window|slots|pace" items (slots 0 = unset, pace - = unset).
ev=${EVBENCH:-build/bin/evbench}; rounds=${ROUNDS:-3}
variants=${VARIANTS:-"1|0|- 1|0|2000 1|8|- 1|8|2000 1|8|5000 32|0|- 32|0|5000 32|1|- 32|1|5000"}
run() {  # window slots pace
  local s=(); (($2 > 0)) && s=(--set receive_slots=$2)
  local e=(); [[ $3 == nf ]] && e=(EVB_X_NOFLUSH=1); [[ $3 != - && $3 != nf ]] && e=(EVB_X_IDLE_PACE=$3)
  env "${e[@]}" "$ev" run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 --set parallel=$1 \
    --set fragment.size=512KiB --set ru_buffer=512KiB --set poll_mode=busy --set duration=3s --set warmup=1s \
    --set driver=ucx --set driver_options.tls=tcp --set driver_options.error_handling=none \
    --set data_path=${DP:-write} "${s[@]}" --json /tmp/pace.json >/dev/null 2>/tmp/pace.err &&
  python3 -c "import json;print('%.2f' % json.load(open('/tmp/pace.json'))['results']['bandwidth_gbps']['aggregate'])" || echo n/a
}
tool() {
  UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 60 ucx_perftest -p 47950 >/dev/null 2>&1 &
  sleep 0.5
  UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 60 ucx_perftest 127.0.0.1 -p 47950 -t ucp_put_bw -s 524288 -O $1 -n 6000 -w 500 -f 2>/dev/null |
    awk 'NF == 8 {v = $6} END {printf "%.2f\n", v * 1048576 * 8 / 1e9}'
  wait
}
echo "# load at start $(cut -d' ' -f1-3 /proc/loadavg); $(git -C "$(dirname "$ev")" rev-parse --short HEAD 2>/dev/null)"
printf "%-14s" round; for v in $variants; do printf " %10s" "$v"; done; printf " %8s %8s\n" tool1 tool32
for ((r = 1; r <= rounds; ++r)); do
  printf "%-14s" $r
  for v in $variants; do IFS='|' read -r w sl p <<<"$v"; printf " %10s" "$(run $w $sl $p)"; done
  printf " %8s %8s\n" "$(tool 1)" "$(tool 32)"
done
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)"
