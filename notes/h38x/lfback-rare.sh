#!/bin/bash
# fi_rma_bw at window 32 with a message back per 32, 128, 1024 writes, and
# evbench libfabric/tcp write with the slots unset and 128 (512 stalled then:
# fixed in 9008a24), two rounds. Run from the repository's root.
w=32
source "$(dirname "$0")/lflib.sh"
echo "# load at start $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-5s %8s %8s %8s %8s %10s %10s\n" round "-c 32" "-c 128" "-c 1024" "ev" "ev rs128" "ev rs512"
for r in 1 2; do
  printf "%-5s %8s %8s %8s %8s %10s %10s\n" $r "$(tool -c 32)" "$(tool -c 128)" "$(tool -c 1024)" "$(evb)" \
    "$(evb --set receive_slots=128)" "$(evb --set receive_slots=512)"
done
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)"
