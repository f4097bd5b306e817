#!/bin/bash
# libfabric/tcp send at parallel 1: two receive slots (the default until
# fff57a3; receive_slots=2 set since, so the script measures the same) against one,
# under ofi_rxm's default read rendezvous and with write rendezvous
# (FI_OFI_RXM_USE_RNDV_WRITE=1), three interleaved rounds, 2 s runs.
cd "$(dirname "$0")/../.."
run() { build/bin/evbench run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 \
  --set parallel=1 --set ru_buffer=512KiB --set duration=2s --set warmup=500ms \
  --set driver=libfabric --set driver_options.provider=tcp --set data_path=send "$@" \
  --json /tmp/lf-slots.json >/dev/null 2>&1 &&
  python3 -c "import json;print('%.1f' % json.load(open('/tmp/lf-slots.json'))['results']['bandwidth_gbps']['aggregate'])"; }
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in 1 2 3; do
  echo "round $r read: 2 slots $(run --set receive_slots=2) 1 slot $(run --set receive_slots=1)" \
    "write-rndv: 2 slots $(FI_OFI_RXM_USE_RNDV_WRITE=1 run --set receive_slots=2) 1 slot $(FI_OFI_RXM_USE_RNDV_WRITE=1 run --set receive_slots=1)"
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
