# Shared by lfback.sh and lfback-rare.sh: bench/fi_rma_bw.c (built to
# /tmp/fi_rma_bw) over libfabric tcp and evbench's libfabric/tcp write,
# one-to-one, 512 KiB, one sender buffer, busy polling, window $w; each prints Gb/s.
cc -O2 -o /tmp/fi_rma_bw bench/fi_rma_bw.c -lfabric || exit 1
tool() {  # extra fi_rma_bw flags
  FI_TCP_IFACE=lo timeout 60 /tmp/fi_rma_bw -p tcp -s 524288 -t 3 -W $w -P 47912 "$@" >/dev/null 2>&1 &
  sleep 0.3
  FI_TCP_IFACE=lo timeout 60 /tmp/fi_rma_bw -p tcp -s 524288 -t 3 -W $w -P 47912 "$@" 127.0.0.1 2>/dev/null |
    sed -n 's/.*gbps=\([0-9.]*\).*/\1/p' | grep . || echo n/a
  wait
}
evb() {  # extra --set options
  "${EVBENCH:-build/bin/evbench}" run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 \
    --set parallel=$w --set fragment.size=512KiB --set ru_buffer=512KiB --set poll_mode=busy \
    --set duration=4s --set warmup=1s --set driver=libfabric --set driver_options.provider=tcp \
    --set data_path=write "$@" --json /tmp/lfb.json >/dev/null 2>&1 &&
    python3 -c "import json;print('%.2f' % json.load(open('/tmp/lfb.json'))['results']['bandwidth_gbps']['aggregate'])" ||
    echo n/a
}
