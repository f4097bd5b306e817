#!/bin/bash
# libfabric/tcp send, parallel 1, 512 KiB, 2 s: 8 runs; per run the rate, and
# the CPU each rank ran on plus its voluntary/involuntary context switches.
cd "$(dirname "$0")/../.." && echo "# load at start $(cut -d" " -f1-3 /proc/loadavg)"
for i in $(seq 1 ${N:-8}); do
  build/bin/evbench run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 --set parallel=1 \
    --set ru_buffer=512KiB --set fragment.size=512KiB --set duration=2s --set warmup=500ms --set poll_mode=busy \
    --set driver=libfabric --set driver_options.provider=tcp --set data_path=send $EXTRA --json /tmp/lfsend.json >/dev/null 2>&1 &
  sleep 1.5
  info=""
  for p in $(pgrep -f "evbench run --quiet --set protocol=one-to-one" | sort -n | tail -2); do
    info+=" $(awk '{print "cpu" $39}' /proc/$p/stat) $(grep -E "^(voluntary|nonvoluntary)_ctxt" /proc/$p/status | awk '{printf "%s ", $2}')"
    info+="thr=$(ls /proc/$p/task | wc -l)"
  done
  wait
  printf "%s %s\n" "$(python3 -c "import json;print('%.2f' % json.load(open('/tmp/lfsend.json'))['results']['bandwidth_gbps']['aggregate'])")" "$info"
done
