# Shared by cpu.sh and prof.sh: ucx/tcp one-to-one at window $1, path $2
# (write or send), 512 KiB, one sender buffer, busy polling, eh none, 5 s,
# in the background; and ucx_perftest's matching test at window $1.
ev_run() {
  "${EVBENCH:-build/bin/evbench}" run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 \
    --set parallel="$1" --set fragment.size=512KiB --set ru_buffer=512KiB --set poll_mode=busy \
    --set duration=5s --set warmup=1s --set driver=ucx --set driver_options.tls=tcp \
    --set driver_options.error_handling=none ${EXTRA} --set data_path="$2" --json /tmp/cpu-ev.json >/dev/null &
}
tool_run() {  # window, test; the server and the client in the background
  UCX_TLS=tcp UCX_NET_DEVICES=lo ucx_perftest -p 47950 >/dev/null 2>&1 &
  sleep 0.5
  UCX_TLS=tcp UCX_NET_DEVICES=lo ucx_perftest 127.0.0.1 -p 47950 -t "$2" -s 524288 -O "$1" -n 40000 \
    -w 500 -f 2>/dev/null | awk 'NF == 8 {v = $6} END {printf "  tool Gb/s %.2f\n", v * 1048576 * 8 / 1e9}' \
    >/tmp/cpu-tool.txt &
}
