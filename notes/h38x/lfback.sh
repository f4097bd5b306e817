#!/bin/bash
# bench/fi_rma_bw.c over libfabric tcp at window $W (default 32), 512 KiB, 3 s:
# plain, with a 16-byte message back every 8 and every 1 writes (-c), every 8
# on a second endpoint (-c 8 -e), with delivery completion (-d), and evbench's libfabric/tcp write one-to-one
# beside them; ROUNDS (default 3) interleaved rounds. Gb/s.
w=${W:-32}; ev=${EVBENCH:-build/bin/evbench}
cc -O2 -o /tmp/fi_rma_bw bench/fi_rma_bw.c -lfabric || exit 1
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
    --set driver=libfabric --set driver_options.provider=tcp --set data_path=write --json /tmp/lfb.json >/dev/null 2>&1 &&
  python3 -c "import json;print('%.2f' % json.load(open('/tmp/lfb.json'))['results']['bandwidth_gbps']['aggregate'])" || echo n/a
}
echo "# window $w; load at start $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-5s %8s %8s %8s %10s %8s %8s\n" round plain "-c 8" "-c 1" "-c 8 -e" "-d" evbench
for ((r = 1; r <= ${ROUNDS:-3}; ++r)); do
  printf "%-5s %8s %8s %8s %10s %8s %8s\n" $r "$(tool)" "$(tool -c 8)" "$(tool -c 1)" "$(tool -c 8 -e)" \
    "$(tool -d)" "$(evb)"
done
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)"
