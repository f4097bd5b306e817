#!/bin/bash
# One-to-one RU 0 -> BU 1 over ucx/tcp and libfabric/tcp, both data paths, at
# windows 1, 2 and 32 (receive_slots unset: 2, 3 and 48 slots; a credit per
# 1, 1 and 8 freed slots) and at window 2 with receive_slots 8 (a credit per
# 3): every run must end with exit 0, corrupt 0 and messages received.
#   bash notes/h38t/integration.sh EVBENCH
evb=${1:-build/bin/evbench}
fail=0
for v in "ucx/tcp|--set driver=ucx --set driver_options.tls=tcp" \
  "libfabric/tcp|--set driver=libfabric --set driver_options.provider=tcp"; do
  name=${v%%|*} opts=${v#*|}
  for path in send write; do
    for w in "1" "2" "32" "2 8"; do
      read -r par slots <<<"$w"
      # shellcheck disable=SC2086
      out=$(timeout 120 "$evb" run --quiet --set protocol=one-to-one --set nodes=2 --set senders=1 \
        --set parallel=$par --set receive_slots=${slots:-0} --set ru_buffer=512KiB $opts \
        --set data_path=$path --set duration=3s --set warmup=500ms 2>&1)
      rc=$?
      msgs=$(sed -n 's/^# messages received \([0-9]*\) (whole run); corrupt \([0-9]*\).*/\1 corrupt \2/p' <<<"$out")
      batch=$(grep -o "a credit per [0-9]* freed slots" <<<"$out" || echo "a credit per 1 slot")
      echo "$name $path parallel $par receive_slots ${slots:-unset}: exit $rc, messages $msgs ($batch)"
      [[ $rc == 0 && $msgs == *"corrupt 0" && ${msgs%% *} -gt 0 ]] || fail=1
    done
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
