#!/bin/bash
# exp3: the receiver made lazier (spin H38U_LAZY_NS before each ucp_worker_progress), send at window 32
E=${E:-/work/h38u/build/bin/evbench}
L=notes/h38u/lazy.so
echo "# exp3 start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in 1 2; do
  line="round $r:"
  for ns in 0 2000 10000; do
    line+=" tool/$ns $(H38U_LAZY_NS=$ns LD_PRELOAD=$L notes/h38u/tool.sh tag_bw 32)"
    line+=" ev/$ns $(H38U_LAZY_NS=$ns LD_PRELOAD=$L notes/h38u/run.sh $E 32 send)"
  done
  echo "$line"
done
echo "# exp3 end $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
