#!/bin/bash
# fi_rma_bw at window 32 with a message back per 32, 128, 1024 writes, and
# evbench libfabric/tcp write with the slots unset and 128 (512: refused), two rounds.
cd "$(dirname "$0")/../.." && cc -O2 -o /tmp/fi_rma_bw bench/fi_rma_bw.c -lfabric || exit 1
w=32; ev=build/bin/evbench
tool() {
  FI_TCP_IFACE=lo timeout 60 /tmp/fi_rma_bw -p tcp -s 524288 -t 3 -W $w -P 47912 "$@" >/dev/null 2>&1 &
  sleep 0.3
  FI_TCP_IFACE=lo timeout 60 /tmp/fi_rma_bw -p tcp -s 524288 -t 3 -W $w -P 47912 "$@" 127.0.0.1 2>/dev/null |
    sed -n 's/.*gbps=\([0-9.]*\).*/\1/p' | grep . || echo n/a
  wait
}
evb() {
  "$ev" run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 --set parallel=$w \
    --set fragment.size=512KiB --set ru_buffer=512KiB --set poll_mode=busy --set duration=4s --set warmup=1s \
    --set driver=libfabric --set driver_options.provider=tcp --set data_path=write "$@" --json /tmp/lfb.json >/dev/null 2>&1 &&
  python3 -c "import json;print('%.2f' % json.load(open('/tmp/lfb.json'))['results']['bandwidth_gbps']['aggregate'])" || echo n/a
}
echo "# load at start $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-5s %8s %8s %8s %8s %10s %10s\n" round "-c 32" "-c 128" "-c 1024" "ev" "ev rs128" "ev rs512"
for r in 1 2; do
  printf "%-5s %8s %8s %8s %8s %10s %10s\n" $r "$(tool -c 32)" "$(tool -c 128)" "$(tool -c 1024)" "$(evb)" "$(evb --set receive_slots=128)" "$(evb --set receive_slots=512)"
done
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)"
