#!/bin/bash
# poll_pause 0 / 2us / 5us beside ucx_perftest tag_bw, interleaved rounds:
# one-to-one, ucx tcp, error_handling none, 512 KiB, one sender buffer.
# $1 = window (default 32), $2 = data path (send), $3 = rounds (3)
w=${1:-32}; path=${2:-send}; rounds=${3:-3}
cd "$(dirname "$0")/../.."
ev() { build/bin/evbench run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 \
  --set parallel=$w --set ru_buffer=512KiB --set duration=3s --set warmup=1s --set poll_mode=busy \
  --set driver=ucx --set driver_options.tls=tcp --set driver_options.error_handling=none \
  --set data_path=$path --set poll_pause=$1 --json /tmp/pause.json >/dev/null 2>&1 &&
  python3 -c "import json;print('%.2f' % json.load(open('/tmp/pause.json'))['results']['bandwidth_gbps']['aggregate'])"; }
tool() { t=$([ $path = send ] && echo tag_bw || echo ucp_put_bw)
  UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 60 ucx_perftest -p 47931 >/dev/null 2>&1 & sleep 0.5
  UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 60 ucx_perftest 127.0.0.1 -p 47931 -t $t -s 524288 -O $w \
    -n 6000 -w 500 -f 2>/dev/null | awk 'NF == 8 {v = $6} END {printf "%.2f\n", v * 1048576 * 8 / 1e9}'; wait; }
echo "# window $w, $path, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq $rounds); do echo "round $r tool $(tool) pause0 $(ev 0s) pause2us $(ev 2us) pause5us $(ev 5us)"; done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
