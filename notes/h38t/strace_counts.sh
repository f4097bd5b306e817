#!/bin/bash
# System calls per message of one-to-one RU 0 -> BU 1 over ucx/tcp (512 KiB,
# one sender buffer, busy polling, error_handling none as ucx_perftest), and
# of ucx_perftest itself, counted by strace -f -c over a whole run (both
# ranks, set-up and warm-up included): a load-independent instrument.
#   strace_counts.sh evbench EVBENCH OUT WINDOW PATH [--set ...]
#   strace_counts.sh tool OUT WINDOW TEST MESSAGES      (TEST: tag_bw, ucp_put_bw; + 10 warm-up)
# Prints the calls of sendmsg, sendto, recvfrom, writev, readv, recvmsg per
# message received (evbench: "messages received" of its output).
set -euo pipefail
per_message() {  # $1 = messages, rest = strace -c files
  /usr/bin/python3 - "$@" <<'PY'
import sys, collections
n = int(sys.argv[1])
calls, errs = collections.Counter(), collections.Counter()
for f in sys.argv[2:]:
    for line in open(f):
        p = line.split()
        if len(p) >= 5 and p[-1].isidentifier() and p[3].isdigit():
            calls[p[-1]] += int(p[3])
            if len(p) == 6: errs[p[-1]] += int(p[4])
cols = ["sendmsg", "sendto", "recvfrom", "writev", "readv", "recvmsg"]
print("messages %d; per message: " % n + ", ".join(
    "%s %.2f (%d calls, %d errors)" % (c, calls[c] / n, calls[c], errs[c]) for c in cols if calls[c]))
PY
}
case $1 in
evbench)
  evb=$2 out=$3 w=$4 path=$5
  shift 5
  strace -f -c -o "$out.strace" "$evb" run --set protocol=one-to-one --set nodes=2 --set senders=1 \
    --set parallel="$w" --set fragment.size=512KiB --set ru_buffer=512KiB --set poll_mode=busy \
    --set duration=3s --set warmup=1s --set driver=ucx --set driver_options.tls=tcp \
    --set driver_options.error_handling=none --set data_path="$path" "$@" >"$out.txt"
  n=$(sed -n 's/^# messages received \([0-9]*\).*/\1/p' "$out.txt")
  per_message "$n" "$out.strace"
  ;;
tool)
  out=$2 w=$3 test=$4 n=$5 port=$((47000 + RANDOM % 1000))
  UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 120 strace -f -c -o "$out.srv.strace" \
    ucx_perftest -p $port >/dev/null 2>&1 &
  sleep 1
  UCX_TLS=tcp UCX_NET_DEVICES=lo timeout 120 strace -f -c -o "$out.cli.strace" \
    ucx_perftest 127.0.0.1 -p $port -t "$test" -s 524288 -n "$n" -w 10 -O "$w" >"$out.txt" 2>&1
  wait
  per_message $((n + 10)) "$out.srv.strace" "$out.cli.strace"  # -w 10: warm-up messages
  ;;
esac
