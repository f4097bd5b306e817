#!/bin/bash
# ss -tnpi of libfabric/tcp write at window $W (default 32): evbench one-to-one
# and bench/fi_rma_bw.c (built to /tmp/fi_rma_bw), bytes queued and segment sizes.
w=${W:-32}; ev=${EVBENCH:-build/bin/evbench}
echo "# load at start $(cut -d" " -f1-3 /proc/loadavg)"
show() { ss -tnpi | grep -A1 "$1" | grep -E "$1|bytes_sent" | sed 's/ \+/ /g' | grep -oE "^ESTAB [0-9]+ [0-9]+|bytes_sent:[0-9]+|bytes_received:[0-9]+|data_segs_out:[0-9]+" | paste -sd' ' | sed 's/ESTAB/\nESTAB/g' | grep -E "bytes_sent:[0-9]{7,}"; }
"$ev" run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 --set parallel=$w \
  --set fragment.size=512KiB --set ru_buffer=512KiB --set poll_mode=busy --set duration=3s --set warmup=1s \
  --set driver=libfabric --set driver_options.provider=tcp --set data_path=write ${EXTRA} --json /tmp/lfs.json >/dev/null &
sleep 2.5; echo "# evbench (Recv-Q Send-Q ...)"; show evbench; wait
python3 -c "import json;print('  Gb/s %.2f' % json.load(open('/tmp/lfs.json'))['results']['bandwidth_gbps']['aggregate'])"
FI_TCP_IFACE=lo timeout 60 /tmp/fi_rma_bw -p tcp -s 524288 -t 4 -W $w -P 47912 $TOOLFLAGS >/dev/null 2>&1 &
sleep 0.3
FI_TCP_IFACE=lo timeout 60 /tmp/fi_rma_bw -p tcp -s 524288 -t 4 -W $w -P 47912 $TOOLFLAGS 127.0.0.1 > /tmp/lfs-tool.txt 2>&1 &
sleep 2.5; echo "# fi_rma_bw $TOOLFLAGS"; show fi_rma_bw; wait; sed -n 's/.*gbps=\([0-9.]*\).*/  Gb\/s \1/p' /tmp/lfs-tool.txt
