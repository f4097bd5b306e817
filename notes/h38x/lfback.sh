#!/bin/bash
# bench/fi_rma_bw.c over libfabric tcp at window $W (default 32), 512 KiB, 3 s:
# plain, with a 16-byte message back every 8 and every 1 writes (-c), every 8
# on a second endpoint (-c 8 -e), with delivery completion (-d), and evbench's
# libfabric/tcp write one-to-one beside them; ROUNDS (default 3) interleaved
# rounds. Gb/s. Run from the repository's root.
w=${W:-32}
source "$(dirname "$0")/lflib.sh"
echo "# window $w; load at start $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-5s %8s %8s %8s %10s %8s %8s\n" round plain "-c 8" "-c 1" "-c 8 -e" "-d" evbench
for ((r = 1; r <= ${ROUNDS:-3}; ++r)); do
  printf "%-5s %8s %8s %8s %10s %8s %8s\n" $r "$(tool)" "$(tool -c 8)" "$(tool -c 1)" "$(tool -c 8 -e)" \
    "$(tool -d)" "$(evb)"
done
echo "# load at end $(cut -d' ' -f1-3 /proc/loadavg)"
