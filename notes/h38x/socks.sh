#!/bin/bash
# TCP connections between the two ranks during ucx/tcp $DP (evbench one-to-one)
# and between ucx_perftest's two processes: ss -tnpi, bytes each way.
dp=${DP:-write}; ev=${EVBENCH:-build/bin/evbench}
echo "# load at start $(cut -d" " -f1-3 /proc/loadavg)"
test=ucp_put_bw; [[ $dp == send ]] && test=tag_bw
"$ev" run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 --set parallel=${W:-1} ${EXTRA} \
  --set fragment.size=512KiB --set ru_buffer=512KiB --set poll_mode=busy --set duration=3s --set warmup=1s \
  --set driver=ucx --set driver_options.tls=tcp --set driver_options.error_handling=none \
  --set data_path=$dp >/dev/null &
sleep 2.5
echo "# evbench"; ss -tnpi | grep -A1 evbench | grep -E "evbench|bytes_sent" | sed 's/ \+/ /g' | grep -oE "^ESTAB [0-9]+ [0-9]+ [^ ]+ [^ ]+|users:[^ ]+|bytes_sent:[0-9]+|bytes_received:[0-9]+|segs_out:[0-9]+|data_segs_out:[0-9]+" | paste -sd' ' | sed 's/ESTAB/\nESTAB/g'
wait
UCX_TLS=tcp UCX_NET_DEVICES=lo ucx_perftest -p 47950 >/dev/null 2>&1 &
sleep 0.5
UCX_TLS=tcp UCX_NET_DEVICES=lo ucx_perftest 127.0.0.1 -p 47950 -t $test -s 524288 -O 1 -n 20000 -w 500 -f >/dev/null 2>&1 &
sleep 2
echo; echo "# tool"; ss -tnpi | grep -A1 ucx_perftest | grep -E "ucx_perftest|bytes_sent" | sed 's/ \+/ /g' | grep -oE "^ESTAB [0-9]+ [0-9]+ [^ ]+ [^ ]+|users:[^ ]+|bytes_sent:[0-9]+|bytes_received:[0-9]+|segs_out:[0-9]+|data_segs_out:[0-9]+" | paste -sd' ' | sed 's/ESTAB/\nESTAB/g'
wait
