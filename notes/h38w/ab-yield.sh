#!/bin/bash
# Interleaved A/B of one-to-one RU 0 -> BU 1 over the ucx write path at
# window 1 (512 KiB, one sender buffer, two receive slots: the default),
# poll_mode yield (at a load of 10 and more, busy polling measures the
# scheduler: docs/MICROBENCH.md "The write path at window 1"), 3 s runs with
# 1 s warm-up. Per round and variant: A then B (B first in even rounds).
#   A=... B=... bash notes/h38w/ab-yield.sh ROUNDS
rounds=${1:-5}
run() {
  local b=$1 out
  shift
  out=$(mktemp)
  "$b" run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 --set parallel=1 \
    --set ru_buffer=512KiB --set poll_mode=yield --set duration=3s --set warmup=1s \
    --set data_path=write "$@" --json "$out" >/dev/null 2>&1 &&
    /usr/bin/python3 -c "import json,sys;print('%.2f' % json.load(open(sys.argv[1]))['results']['bandwidth_gbps']['aggregate'])" "$out" ||
    echo n/a
  rm -f "$out"
}
echo "# load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; ++r)); do
  for v in "tcp none" "tcp peer" "sm none" "sm peer"; do
    set -- $v
    drv="--set driver=ucx --set driver_options.tls=$1 --set driver_options.error_handling=$2"
    if ((r % 2)); then
      a=$(run "$A" $drv); b=$(run "$B" $drv)
    else
      b=$(run "$B" $drv); a=$(run "$A" $drv)
    fi
    echo "r$r ucx/$1 write (eh $2) A $a B $b load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
